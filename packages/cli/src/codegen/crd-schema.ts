// Step one of `rxfleet gen types`: a CRD version's structural schema, rewritten as the plain JSON
// Schema that json-schema-to-typescript understands, with Kubernetes' extensions given their meaning.
import type { JSONSchemaProps } from 'rxfleet/resources';

/**
 * A JSON Schema node as json-schema-to-typescript reads it; `tsType` overrides the type it writes.
 *
 * @example
 * ```ts
 * const s: JsonSchemaNode = { type: 'object', properties: { port: { tsType: 'number | string' } }, required: ['port'] };
 * ```
 */
export interface JsonSchemaNode {
  /** JSON type; absent when `tsType` or `anyOf` decides. */
  type?: string;
  /** Kept as the doc comment of the property or type. */
  description?: string;
  /** Named properties of an object. */
  properties?: Record<string, JsonSchemaNode>;
  /** Properties that must be present. */
  required?: string[];
  /** Item schema of an array. */
  items?: JsonSchemaNode;
  /** Value schema of a map, `true` for any value, `false` for none beyond `properties`. */
  additionalProperties?: JsonSchemaNode | boolean;
  /** The allowed values, written as a union of literals. */
  enum?: unknown[];
  /** Alternatives, written as a union (used for `nullable`). */
  anyOf?: JsonSchemaNode[];
  /** The TypeScript type to write verbatim. */
  tsType?: string;
  /** Names the interface written for this node (`WidgetSpec`), so users can import it. */
  title?: string;
}

/**
 * What a conversion needs to know beyond the schema.
 *
 * @example
 * ```ts
 * const opts: CrdSchemaOptions = { root: true };
 * ```
 */
export interface CrdSchemaOptions {
  /** True for a version's top-level schema: `metadata` becomes rxfleet's `ObjectMeta`, required, as on every object. */
  readonly root?: boolean;
  /**
   * Names the interfaces of nested objects after their path from this name: `Widget` gives
   * `WidgetSpec`, `WidgetSpecEnv` (the items of `spec.env`). Absent: nested objects stay inline.
   */
  readonly name?: string;
}

const apiVersionDoc = 'API group/version of the object.';
const kindDoc = 'Kind of the object.';

/**
 * Rewrites a CRD schema as JSON Schema for json-schema-to-typescript. Kubernetes' extensions:
 * `x-kubernetes-int-or-string` becomes `number | string`; `x-kubernetes-preserve-unknown-fields`
 * allows any further fields (`unknown` when nothing else is declared); `x-kubernetes-embedded-resource`
 * becomes an object with `apiVersion`, `kind` and `metadata` (a `KubeObject` when nothing else is
 * declared); `nullable` adds `null`. `allOf`/`anyOf`/`oneOf`/`not` only validate in a structural
 * schema, so they are dropped: the types come from the node itself.
 *
 * @example
 * ```ts
 * const node = crdSchemaToJsonSchema({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } }, { root: false });
 * // node.properties.port.tsType === 'number | string'
 * ```
 * @param s - one node of `openAPIV3Schema`.
 * @param opts - whether it is a version's top-level schema.
 * @returns the JSON Schema node.
 */
export function crdSchemaToJsonSchema(s: JSONSchemaProps, opts: CrdSchemaOptions = {}): JsonSchemaNode {
  const node = convert(s, opts.name);
  if (opts.root !== true) return node;
  // apiVersion, kind and metadata first, as on every Kubernetes object; the schema's own versions are replaced.
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, ...rest } = node.properties ?? {};
  const properties: Record<string, JsonSchemaNode> = {
    apiVersion: { type: 'string', description: apiVersionDoc },
    kind: { type: 'string', description: kindDoc },
    metadata: { tsType: 'ObjectMeta', description: 'Standard object metadata: name, namespace, labels, resourceVersion and the rest.' },
    ...rest,
  };
  return { ...node, type: 'object', properties, required: [...new Set([...(node.required ?? []), 'metadata'])], additionalProperties: node.additionalProperties ?? false };
}

function convert(s: JSONSchemaProps, name: string | undefined): JsonSchemaNode {
  const base = describe(s);
  const nullable = (n: JsonSchemaNode): JsonSchemaNode => (s.nullable === true ? { ...base, anyOf: [strip(n), { type: 'null' }] } : n);
  if (s['x-kubernetes-int-or-string'] === true) return nullable({ ...base, tsType: 'number | string' });
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const declared = s.properties !== undefined && Object.keys(s.properties).length > 0;
  if (s['x-kubernetes-embedded-resource'] === true && !declared) return nullable({ ...base, tsType: 'KubeObject' });
  if (s.type === undefined && preserve && !declared) return nullable({ ...base, tsType: 'unknown' });
  const node: JsonSchemaNode = { ...base };
  if (s.type !== undefined) node.type = s.type;
  if (s.enum !== undefined) node.enum = [...s.enum];
  if (s.items !== undefined && !isSchemaList(s.items)) node.items = convert(s.items, name);
  if (declared || s.type === 'object' || preserve) {
    node.type = 'object';
    let properties: Record<string, JsonSchemaNode> = {};
    // Sorted as a server returns them (Go sorts map keys), so a CRD read from a cluster gives the same file as its YAML.
    const entries = Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [prop, p] of entries) properties[prop] = convert(p, name === undefined ? undefined : `${name}${pascal(prop)}`);
    const required = [...(s.required ?? [])];
    if (s['x-kubernetes-embedded-resource'] === true) {
      // First, as on every object; what the schema declares of them wins.
      properties = { apiVersion: { type: 'string', description: apiVersionDoc }, kind: { type: 'string', description: kindDoc }, metadata: { tsType: 'ObjectMeta', description: 'Metadata of the embedded object.' }, ...properties };
      required.push('apiVersion', 'kind');
    }
    if (Object.keys(properties).length > 0) node.properties = properties;
    if (required.length > 0) node.required = [...new Set(required)];
    const ap = s.additionalProperties;
    node.additionalProperties = preserve || ap === true ? true : typeof ap === 'object' ? convert(ap, name === undefined ? undefined : `${name}Value`) : false;
    if (declared && name !== undefined) node.title = name;
  }
  return nullable(node);
}

/** `spec` → `Spec`, `x-kubernetes-foo` → `XKubernetesFoo`: a property name as part of a type name. */
function pascal(prop: string): string {
  return prop.split(/[^A-Za-z0-9]+/).filter((p) => p !== '').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}

function describe(s: JSONSchemaProps): JsonSchemaNode {
  return s.description === undefined ? {} : { description: s.description };
}

function strip(n: JsonSchemaNode): JsonSchemaNode {
  const { description: _description, ...rest } = n;
  return rest;
}

// `items` may be a list of schemas (tuple validation), which structural schemas forbid; ignored then.
function isSchemaList(items: JSONSchemaProps | readonly JSONSchemaProps[]): items is readonly JSONSchemaProps[] {
  return Array.isArray(items);
}
