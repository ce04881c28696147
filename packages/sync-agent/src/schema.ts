// A service cluster's CRD, as kcp should serve it: which versions are published and which one is the
// storage version, the projected names, and the APIResourceSchema (ARS) made of them. An ARS is
// immutable, so its name carries a hash of its spec: a changed CRD or projection gets a new name,
// an unchanged one the same name (a restart, or undoing a change, re-uses the existing ARS).
import { canonicalJson } from 'rxfleet';
import type { CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion, JSONSchemaProps } from 'rxfleet/resources';
import type { APIResourceSchema, APIResourceVersion, ExportResource } from 'rxfleet/providers/kcp';
import { agentLabels } from './labels.js';
import type { PublishedResource, PublishedCrd } from './types.js';
import { kcpVersionName, renameProblems, versionNameProblem } from './version-names.js';
import { compareKubeVersions } from './version-order.js';

// From getBuiltinModule, not `import`: see rxfleet's src/client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

/**
 * The versions published from a CRD and the one that is the storage version (and the sync version),
 * or why none can be: every problem, each naming the CRD and the version.
 *
 * @example
 * ```ts
 * const c: VersionChoice = { type: 'chosen', versions: ['v1alpha1', 'v1'], storage: 'v1' };
 * ```
 */
export type VersionChoice =
  | { readonly type: 'chosen'; readonly versions: readonly string[]; readonly storage: string }
  | { readonly type: 'invalid'; readonly problems: readonly string[] };

/**
 * Chooses the versions of a CRD to publish: `source.versions`, or every served version. Each must
 * exist, be served, and have a name kcp accepts: its own, or its rename (`renames`, the
 * projection's `versions`, checked by `renameProblems`). The storage version (the one the agent reads and writes on both sides) is
 * the CRD's storage version when it is published, else the highest published version in
 * Kubernetes version order (`v1` > `v1beta1` > `v1alpha1`).
 *
 * @example
 * ```ts
 * const choice = versionChoice(crd, { group: 'db.example.dev', kind: 'Database', versions: ['v1'] });
 * if (choice.type === 'chosen') console.log(choice.storage);
 * ```
 * @param crd - the CRD read from the service cluster.
 * @param source - the published resource's source.
 * @param renames - the projection's version renames (service version → kcp version), if any.
 * @returns the choice (service names), or every problem found.
 */
export function versionChoice(crd: CustomResourceDefinition, source: PublishedCrd, renames?: Readonly<Record<string, string>>): VersionChoice {
  const name = crd.metadata.name ?? `${crd.spec.names.plural}.${crd.spec.group}`;
  const all = crd.spec.versions;
  const served = all.filter((v) => v.served).map((v) => v.name);
  const wanted = source.versions ?? served;
  const problems: string[] = [];
  if (wanted.length === 0) problems.push(`CRD ${name} serves no version`);
  for (const v of wanted) {
    const found = all.find((x) => x.name === v);
    if (found === undefined) problems.push(`version ${v} is not a version of CRD ${name} (it has ${all.map((x) => x.name).join(', ')})`);
    else if (!found.served) problems.push(`version ${v} of CRD ${name} is not served`);
    else if (renames?.[v] === undefined && versionNameProblem(v) !== undefined) problems.push(`version ${v} of CRD ${name} cannot be published: kcp requires version names like v1, v1beta2`);
  }
  if (problems.length > 0) return { type: 'invalid', problems };
  const versions = all.map((v) => v.name).filter((v) => wanted.includes(v));
  const renamed = renameProblems(versions, renames, name);
  if (renamed.length > 0) return { type: 'invalid', problems: renamed };
  const storageVersion = all.find((v) => v.storage)?.name;
  const storage = storageVersion !== undefined && versions.includes(storageVersion) ? storageVersion : [...versions].sort(compareKubeVersions)[0];
  // `versions` is not empty here (wanted is not, and every wanted version was found).
  return { type: 'chosen', versions, storage: storage ?? '' };
}

/**
 * The names a CRD gets in kcp under a published resource's projection: group, plural and kind
 * replaced where projected (singular and listKind follow a projected kind), the rest kept.
 *
 * @example
 * ```ts
 * const names = projectedNames(crd, { name: 'dbs', crd: { group: 'db.example.dev', kind: 'Database' }, projection: { group: 'databases.example.dev' } });
 * console.log(names.group, names.names.plural);
 * ```
 * @param crd - the CRD read from the service cluster.
 * @param published - the published resource (its projection).
 * @returns the group and the names in kcp.
 */
export function projectedNames(crd: CustomResourceDefinition, published: PublishedResource): { readonly group: string; readonly names: CustomResourceDefinitionNames } {
  const p = published.projection ?? {};
  const n = crd.spec.names;
  const kind = p.kind ?? n.kind;
  const kindChanged = kind !== n.kind;
  const names: CustomResourceDefinitionNames = {
    kind,
    plural: p.plural ?? n.plural,
    ...(kindChanged ? { singular: kind.toLowerCase(), listKind: `${kind}List` } : { ...opt('singular', n.singular), ...opt('listKind', n.listKind) }),
    ...opt('shortNames', p.shortNames ?? n.shortNames),
    ...opt('categories', p.categories ?? n.categories),
  };
  return { group: p.group ?? crd.spec.group, names };
}

/**
 * The APIResourceSchema of a published CRD: the published versions only (the storage version as
 * {@link versionChoice} says), each with its schema, subresources and printer columns, under its name
 * in kcp (renamed by `projection.versions`, its flags following it, its content as it is); scope kept;
 * names projected; labelled with the agent and the published resource. Named
 * `v<hash>.<plural>.<group>`, the hash over the spec only (see {@link schemaName}).
 *
 * @example
 * ```ts
 * const made = apiResourceSchemaOf(crd, published, 'rxfleet-sync');
 * if (made.type === 'schema') console.log(made.schema.metadata.name); // 'v3f2a9c1d.databases.db.example.dev'
 * ```
 * @param crd - the CRD read from the service cluster.
 * @param published - the published resource.
 * @param agentName - the agent's name (labels).
 * @returns the schema, or why the CRD cannot be published.
 */
export function apiResourceSchemaOf(
  crd: CustomResourceDefinition,
  published: PublishedResource,
  agentName: string,
): { readonly type: 'schema'; readonly schema: APIResourceSchema; readonly storage: string } | { readonly type: 'invalid'; readonly problems: readonly string[] } {
  const choice = versionChoice(crd, published.crd, published.projection?.versions);
  if (choice.type === 'invalid') return choice;
  const { group, names } = projectedNames(crd, published);
  const versions = crd.spec.versions.filter((v) => choice.versions.includes(v.name)).map((v) => arsVersion(v, v.name === choice.storage, kcpVersionName(v.name, published.projection)));
  const spec: APIResourceSchema['spec'] = {
    group,
    names,
    scope: published.projection?.scope ?? (crd.spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced'),
    versions,
    // kcp requires a conversion for several versions; None (no webhook) is what kcp can run.
    ...(versions.length > 1 ? { conversion: { strategy: 'None' as const } } : {}),
  };
  const schema: APIResourceSchema = {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: schemaName(spec), labels: agentLabels(agentName, published.name) },
    spec,
  };
  return { type: 'schema', schema, storage: choice.storage };
}

/**
 * The name of an APIResourceSchema with this spec: `v<first 8 hex of SHA-256 of its canonical
 * JSON>.<plural>.<group>`. Equal specs (key order aside) get equal names; any change gets another.
 * The leading `v` keeps a hash starting with a digit a valid name prefix.
 *
 * @example
 * ```ts
 * schemaName(schema.spec); // 'v3f2a9c1d.databases.db.example.dev'
 * ```
 * @param spec - the schema's spec.
 * @returns the name.
 */
export function schemaName(spec: APIResourceSchema['spec']): string {
  const hash = createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 8);
  return `v${hash}.${spec.names.plural}.${spec.group}`;
}

/**
 * The APIExport (v1alpha2) entry that serves an APIResourceSchema: its group, plural and name,
 * stored as a CRD in kcp.
 *
 * @example
 * ```ts
 * exportEntry(schema); // { group: 'db.example.dev', name: 'databases', schema: 'v3f2a9c1d.databases.db.example.dev', storage: { crd: {} } }
 * ```
 * @param schema - the APIResourceSchema.
 * @returns the export's resource entry.
 */
export function exportEntry(schema: APIResourceSchema): ExportResource {
  return { group: schema.spec.group, name: schema.spec.names.plural, schema: schema.metadata.name ?? '', storage: { crd: {} } };
}

type Schema = Readonly<Record<string, unknown>>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

// metav1.Condition, as controller-gen writes it: what the agent's condition needs to survive pruning.
const conditionsSchema: Schema = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string', maxLength: 316 },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string', maxLength: 1024 },
      message: { type: 'string', maxLength: 32768 },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    },
  },
};

/**
 * A version's schema with room for the agent's condition in kcp: `status.conditions` (metav1.Condition
 * items) added when the version has a status subresource and its status schema neither has
 * `conditions` nor keeps unknown fields. Without it kcp would prune the condition that tells a
 * consumer why the agent refused to sync its object.
 *
 * @example
 * ```ts
 * const schema = withConditions({ type: 'object', properties: { status: { type: 'object', properties: { phase: { type: 'string' } } } } }, true);
 * ```
 * @param schema - the version's OpenAPI schema.
 * @param statusSubresource - whether the version has a status subresource.
 * @returns the schema, with `status.conditions` when it needed it.
 */
export function withConditions(schema: JSONSchemaProps, statusSubresource: boolean): JSONSchemaProps {
  if (!statusSubresource || schema['x-kubernetes-preserve-unknown-fields'] === true) return schema;
  const properties: Schema = isSchema(schema.properties) ? schema.properties : {};
  const status = isSchema(properties.status) ? properties.status : { type: 'object' };
  const statusProperties = isSchema(status.properties) ? status.properties : {};
  if (status['x-kubernetes-preserve-unknown-fields'] === true || statusProperties.conditions !== undefined) return schema;
  return { ...schema, properties: { ...properties, status: { ...status, properties: { ...statusProperties, conditions: conditionsSchema } } } };
}

function arsVersion(v: CustomResourceDefinitionVersion, storage: boolean, name: string): APIResourceVersion {
  // A CRD version without a schema (apiextensions v1 requires one, but be safe) accepts anything.
  const schema: JSONSchemaProps = v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    name,
    served: true,
    storage,
    schema: withConditions(schema, v.subresources?.status !== undefined),
    ...opt('deprecated', v.deprecated),
    ...opt('deprecationWarning', v.deprecationWarning),
    ...opt('subresources', v.subresources),
    ...opt('additionalPrinterColumns', v.additionalPrinterColumns),
  };
}

// Optional fields are left out, not set to undefined: the hash must not depend on how a field is absent.
function opt<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, V>>);
}
