// From OpenAPI v3 schemas (as kube-apiserver serves them) to TypeScript type text: which schemas
// become named interfaces, where each one lives, and how a property's schema reads as a type.

/** One OpenAPI v3 schema, narrowed to what Kubernetes uses. */
export interface Schema {
  readonly description?: string;
  readonly type?: string;
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly allOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly $ref?: string;
  readonly 'x-kubernetes-group-version-kind'?: readonly { readonly group: string; readonly version: string; readonly kind: string }[];
}

const apiextensions = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

/** Schemas whose TypeScript shape is written here rather than derived. */
const special: Readonly<Record<string, string>> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': 'ObjectMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': 'OwnerReference',
  [`${apiextensions}JSON`]: 'unknown',
  [`${apiextensions}JSONSchemaPropsOrArray`]: 'JSONSchemaProps | readonly JSONSchemaProps[]',
  [`${apiextensions}JSONSchemaPropsOrBool`]: 'JSONSchemaProps | boolean',
  [`${apiextensions}JSONSchemaPropsOrStringArray`]: 'JSONSchemaProps | readonly string[]',
};

/** Refs a special shape mentions, so the file that uses it imports them. */
export const specialRefs: Readonly<Record<string, readonly string[]>> = {
  [`${apiextensions}JSONSchemaPropsOrArray`]: [`${apiextensions}JSONSchemaProps`],
  [`${apiextensions}JSONSchemaPropsOrBool`]: [`${apiextensions}JSONSchemaProps`],
  [`${apiextensions}JSONSchemaPropsOrStringArray`]: [`${apiextensions}JSONSchemaProps`],
};

/** The names rxfleet's core already defines (src/core/object.ts), imported rather than generated. */
export const coreNames: ReadonlySet<string> = new Set(['ObjectMeta', 'OwnerReference', 'KubeObject']);

export const refName = (ref: string): string => ref.replace('#/components/schemas/', '');

/** `core-v1`, `apps-v1`, `meta-v1`, `apiextensions-v1`: the folder a schema's type is written to. */
export function homeOf(key: string): string {
  const api = /^io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.[A-Za-z0-9]+$/.exec(key);
  if (api !== null) return `${api[1]}-${api[2]}`;
  const ext = /^io\.k8s\.apiextensions-apiserver\.pkg\.apis\.apiextensions\.(v[0-9a-z]+)\./.exec(key);
  if (ext !== null) return `apiextensions-${ext[1]}`;
  const meta = /^io\.k8s\.apimachinery\.pkg\.apis\.meta\.(v[0-9a-z]+)\./.exec(key);
  if (meta !== null) return `meta-${meta[1]}`;
  throw new Error(`no home for schema ${key}`);
}

/** True when a schema becomes a named interface (it has properties); others are inlined where used. */
export const isNamed = (key: string, s: Schema | undefined): boolean => special[key] === undefined && s?.properties !== undefined;

/** The schema a property points to, looking through `allOf: [{ $ref }]`, the way Kubernetes wraps refs that carry a description. */
export function targetRef(s: Schema): string | undefined {
  if (s.$ref !== undefined) return refName(s.$ref);
  const only = s.allOf?.length === 1 ? s.allOf[0] : undefined;
  return only?.$ref === undefined ? undefined : refName(only.$ref);
}

export interface TypeContext {
  readonly schemas: Readonly<Record<string, Schema>>;
  /** The TypeScript name chosen for a named schema. */
  nameOf(key: string): string;
  /** Records that the type being written mentions named schema `key`. */
  use(key: string): void;
}

const literal = (v: unknown): string => (typeof v === 'string' && !v.includes("'") && !v.includes('\\') ? `'${v}'` : JSON.stringify(v));

/** The TypeScript type of a schema, as text. */
export function typeOf(s: Schema, ctx: TypeContext): string {
  const ref = targetRef(s);
  if (ref !== undefined) {
    const shape = special[ref];
    if (shape !== undefined) {
      for (const k of specialRefs[ref] ?? []) ctx.use(k);
      if (coreNames.has(shape)) ctx.use(ref);
      return shape;
    }
    const target = ctx.schemas[ref];
    if (target === undefined) throw new Error(`dangling $ref ${ref}`);
    if (isNamed(ref, target)) {
      ctx.use(ref);
      return ctx.nameOf(ref);
    }
    return typeOf(target, ctx);
  }
  if (s.format === 'int-or-string') return 'number | string';
  if (s.oneOf !== undefined) return s.oneOf.map((o) => typeOf(o, ctx)).join(' | ');
  if (s.enum !== undefined && s.enum.length > 0) return s.enum.map(literal).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const item = s.items === undefined ? 'unknown' : typeOf(s.items, ctx);
      return `readonly ${item.includes(' ') ? `(${item})` : item}[]`;
    }
    case 'object': {
      const ap = s.additionalProperties;
      const value = ap === undefined || typeof ap === 'boolean' ? 'unknown' : typeOf(ap, ctx);
      return `Readonly<Record<string, ${value}>>`;
    }
    default:
      return 'unknown';
  }
}

/** The named schemas reachable from `roots`, following properties, items and additionalProperties. */
export function reachable(roots: readonly string[], schemas: Readonly<Record<string, Schema>>): Set<string> {
  const seen = new Set<string>();
  const visit = (s: Schema | undefined): void => {
    if (s === undefined) return;
    const ref = targetRef(s);
    if (ref !== undefined) {
      for (const k of specialRefs[ref] ?? []) visitKey(k);
      visitKey(ref);
      return;
    }
    for (const p of Object.values(s.properties ?? {})) visit(p);
    if (s.items !== undefined) visit(s.items);
    if (typeof s.additionalProperties === 'object') visit(s.additionalProperties);
    for (const o of s.oneOf ?? []) visit(o);
  };
  const visitKey = (key: string): void => {
    if (seen.has(key)) return;
    const s = schemas[key];
    if (!isNamed(key, s)) return;
    seen.add(key);
    visit(s);
  };
  roots.forEach(visitKey);
  return seen;
}

/** The first sentence of a description, on one line, safe inside a doc comment. */
export function summary(description: string | undefined, fallback: string): string {
  const flat = (description ?? '').replace(/\s+/g, ' ').trim();
  if (flat === '') return fallback;
  // A sentence ends at a full stop, but not the one inside `e.g.` or `i.e.`.
  const end = flat.search(/(?<!\be\.g|\bi\.e)\.(\s|$)/);
  let s = end < 0 ? flat : flat.slice(0, end + 1);
  if (s.length > 200) s = `${s.slice(0, 197).replace(/\s+\S*$/, '')}…`;
  // `*/` would end the comment; `@` would read as a TSDoc tag.
  return s.replace(/\*\//g, '*\u200b/').replace(/@/g, '\\@');
}
