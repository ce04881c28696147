// The smallest valid value of a schema, as TypeScript source: what each generated type's @example
// shows. Only required fields are filled, so the example reads as "what you must give".
import { isNamed, targetRef } from './schema.js';
import type { Schema } from './schema.js';

const maxDepth = 6;

function valueOf(s: Schema, schemas: Readonly<Record<string, Schema>>, depth: number): string {
  const ref = targetRef(s);
  if (ref !== undefined) {
    if (ref.endsWith('meta.v1.ObjectMeta')) return "{ name: 'example' }";
    if (ref.endsWith('JSONSchemaPropsOrBool')) return 'true';
    if (ref.endsWith('JSONSchemaPropsOrArray') || ref.endsWith('JSONSchemaPropsOrStringArray')) return '[]';
    const target = schemas[ref] ?? {};
    return isNamed(ref, target) ? sample(ref, schemas, depth + 1) : valueOf(target, schemas, depth);
  }
  if (s.format === 'int-or-string') return '1';
  if (s.oneOf !== undefined) return s.oneOf[0] === undefined ? '{}' : valueOf(s.oneOf[0], schemas, depth);
  if (s.enum !== undefined && s.enum.length > 0) return JSON.stringify(s.enum[0]).replace(/"/g, "'");
  switch (s.type) {
    case 'string':
      return "'example'";
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'true';
    case 'array':
      return '[]';
    default:
      return '{}';
  }
}

/** `{ name: 'example', containers: [] }`: the required fields of named schema `key`, filled. */
export function sample(key: string, schemas: Readonly<Record<string, Schema>>, depth: number): string {
  const s = schemas[key] ?? {};
  const isKind = (s['x-kubernetes-group-version-kind']?.length ?? 0) > 0 && s.properties?.metadata !== undefined;
  const fields: string[] = isKind ? ["metadata: { name: 'example' }"] : [];
  if (depth < maxDepth) {
    for (const p of s.required ?? []) {
      const ps = s.properties?.[p];
      if (ps === undefined || (isKind && ['apiVersion', 'kind', 'metadata'].includes(p))) continue;
      fields.push(`${/^[A-Za-z_$][\w$]*$/.test(p) ? p : JSON.stringify(p).replace(/"/g, "'")}: ${valueOf(ps, schemas, depth)}`);
    }
  }
  return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
}
