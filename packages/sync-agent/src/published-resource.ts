// api-syncagent's PublishedResource (syncagent.kcp.io/v1alpha1, as of v0.7) as configuration: each
// object is checked field by field and converted into an entry of the agent's own form, so both
// forms become one published list and one plan (preflight.ts); nothing downstream knows which form
// an entry was written in. What the agent does not do is refused with the field's path and the file,
// never ignored: a PublishedResource that converts is one that behaves as documented (docs/sync.md
// has the field-by-field table).
import type { Json, Problems } from './config-check.js';
import { at, describe, identifierProblem, kindProblem, list, mapping, templateProblem, text } from './config-check.js';
import { parseLabelSelector } from './label-selector.js';
import { checkMutation } from './mutation-config.js';
import { checkRelatedOptions } from './related-options-check.js';
import { checkRelatedNamespace } from './related-namespace.js';
import { dnsLabelProblem, dnsSubdomainProblem } from './naming.js';
import { pathProblem } from './object-path.js';
import { checkPublishedProjection, legacyNaming, namespaceFilter, selectorString } from './published-resource-fields.js';
import { relatedReferenceProblem } from './related-places.js';
import { checkIdentityHash, checkRelatedGvr, checkRelatedProjection } from './related-gvr-check.js';
import { checkRegex, checkSelector } from './related-selector-check.js';

/** The API version of the PublishedResources the agent reads. */
export const publishedResourceApiVersion = 'syncagent.kcp.io/v1alpha1';

/**
 * The documents of one YAML file of PublishedResources (read by `syncOptions`).
 *
 * @example
 * ```ts
 * const f: PublishedResourceFile = { file: 'published/databases.yaml', documents: loadAll(text) };
 * ```
 */
export interface PublishedResourceFile {
  /** The file, as errors name it. */
  readonly file: string;
  /** Its YAML documents: PublishedResources, or Lists of them. */
  readonly documents: readonly unknown[];
}

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a value is written as an api-syncagent PublishedResource (its `kind`).
 *
 * @example
 * ```ts
 * isPublishedResource({ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource' }); // true
 * ```
 * @param v - a value read from YAML.
 * @returns whether to read it as one.
 */
export function isPublishedResource(v: unknown): boolean {
  return isMap(v) && v.kind === 'PublishedResource';
}

const notYet = (what: string): string => `not supported yet: ${what}`;

function checkRelated(v: unknown, path: string, p: Problems, ids: Set<string>): Json | undefined {
  const keys = ['identifier', 'origin', 'group', 'version', 'resource', 'kind', 'identityHash', 'projection', 'cleanup', 'object', 'mutation', 'watch', 'syncStatus'];
  const m = mapping(v, path, keys, p);
  if (m === undefined) return undefined;
  const before = p.list.length;
  const id = text(m, 'identifier', path, p, identifierProblem, true);
  if (id !== undefined && ids.has(id)) p.add(at(path, 'identifier'), `"${id}" is used twice`);
  if (id !== undefined) ids.add(id);
  const origin = text(m, 'origin', path, p, (s) => (s === 'service' || s === 'kcp' ? undefined : 'is not an origin: expected "service" or "kcp"'), true);
  const gvr = checkRelatedGvr(m, path, p);
  const identityHash = checkIdentityHash(m, path, p, gvr);
  const projection = checkRelatedProjection(m, path, p);
  // Accepted, nothing to convert: the agent watches every related resource on both sides and maps
  // each change back to its primary object (by name, back-reference or selector) with or without it.
  const watch = m.watch === undefined ? undefined : mapping(m.watch, at(path, 'watch'), ['byOwner', 'bySelector'], p);
  if (watch !== undefined && (watch.byOwner === undefined) === (watch.bySelector === undefined)) p.add(at(path, 'watch'), 'give exactly one of byOwner or bySelector');
  const options = checkRelatedOptions(m, path, p, 'PublishedResource');
  const where = at(path, 'object');
  const o = m.object === undefined ? undefined : mapping(m.object, where, ['reference', 'template', 'selector', 'namespace'], p);
  if (o?.namespace !== undefined && o.selector !== undefined) p.add(at(where, 'namespace'), notYet('with selector (a selector finds objects in the primary object\'s namespace)'));
  const namespace = o?.namespace === undefined || o.selector !== undefined ? undefined : checkRelatedNamespace(o.namespace, at(where, 'namespace'), p, 'PublishedResource');
  if (m.object === undefined) p.add(where, 'required: reference or template');
  let object: Json | undefined;
  if (o !== undefined) {
    if ([o.reference, o.template, o.selector].filter((x) => x !== undefined).length !== 1) p.add(where, 'give exactly one of reference, template or selector');
    const ref = o.reference === undefined ? undefined : mapping(o.reference, at(where, 'reference'), ['path', 'regex'], p);
    const regex = ref?.regex === undefined ? undefined : checkRegex(ref.regex, at(at(where, 'reference'), 'regex'), p, true);
    const refPath = ref === undefined ? undefined : text(ref, 'path', at(where, 'reference'), p, (s) => pathProblem(s), true);
    const tpl = o.template === undefined ? undefined : mapping(o.template, at(where, 'template'), ['template'], p);
    const template = tpl === undefined ? undefined : text(tpl, 'template', at(where, 'template'), p, templateProblem(dnsSubdomainProblem), true);
    const selector = o.selector === undefined ? undefined : checkSelector(o.selector, at(where, 'selector'), p, 'PublishedResource');
    const ns = namespace === undefined ? {} : { namespace };
    object = refPath !== undefined ? { path: refPath, ...(regex === undefined ? {} : { regex }), ...ns } : template !== undefined ? { template, ...ns } : selector !== undefined ? { selector } : undefined;
    const unsafe = object === undefined ? undefined : relatedReferenceProblem(object as { path: string });
    if (unsafe !== undefined) p.add(where, unsafe);
  }
  return p.list.length === before && id !== undefined && origin !== undefined && gvr !== undefined && object !== undefined ? { identifier: id, origin, ...gvr, ...(identityHash === undefined ? {} : { identityHash }), ...(projection === undefined ? {} : { projection }), object, ...options } : undefined;
}

function convert(doc: Json, where: string, name: string, p: Problems): Json | undefined {
  const before = p.list.length;
  const spec = mapping(doc.spec, `${where}: spec`, ['resource', 'filter', 'naming', 'enableWorkspacePaths', 'projection', 'mutation', 'related', 'synchronization'], p);
  if (spec === undefined) return undefined;
  const s = `${where}: spec`;
  // api-syncagent copies every label and annotation down but its own and kcp's (keyMatches leaves those out).
  const entry: Record<string, unknown> = { name, from: where, syncDown: { labels: ['*'], annotations: ['*'] } };
  const resource = spec.resource === undefined ? undefined : mapping(spec.resource, at(s, 'resource'), ['apiGroup', 'kind', 'version', 'versions'], p);
  if (spec.resource === undefined) p.add(at(s, 'resource'), 'required: apiGroup, kind and versions of the CRD to publish');
  if (resource !== undefined) {
    const r = at(s, 'resource');
    const group = text(resource, 'apiGroup', r, p, dnsSubdomainProblem, true);
    const kind = text(resource, 'kind', r, p, kindProblem, true);
    const one = text(resource, 'version', r, p, () => undefined);
    const versions = list(resource, 'versions', r, p, 'must not be empty; leave it out to publish every served version');
    if (one !== undefined && versions !== undefined) p.add(r, 'give versions, or version (deprecated), not both');
    versions?.forEach((v, i) => {
      if (typeof v !== 'string') p.add(`${at(r, 'versions')}[${i}]`, `expected a version name, got ${describe(v)}`);
    });
    entry.crd = { group, kind, ...(one !== undefined ? { versions: [one] } : versions !== undefined ? { versions } : {}) };
  }
  if (spec.filter !== undefined) {
    const f = mapping(spec.filter, at(s, 'filter'), ['resource', 'namespace'], p);
    const selector = f?.resource === undefined ? undefined : selectorString(f.resource, at(at(s, 'filter'), 'resource'), p);
    const namespace = f?.namespace === undefined ? undefined : namespaceFilter(f.namespace, at(at(s, 'filter'), 'namespace'), p);
    const filter = { ...(selector === undefined || selector === '' ? {} : { labelSelector: selector }), ...(namespace === undefined || namespace === '' ? {} : { namespace }) };
    if (Object.keys(filter).length > 0) entry.filter = filter;
  }
  if (spec.naming !== undefined) {
    const n = mapping(spec.naming, at(s, 'naming'), ['name', 'namespace'], p);
    const naming: Record<string, string> = {};
    for (const [key, check] of [['namespace', dnsLabelProblem], ['name', dnsSubdomainProblem]] as const) {
      const written = n === undefined ? undefined : text(n, key, at(s, 'naming'), p, () => undefined);
      if (written === undefined || written === '') continue;
      const template = legacyNaming(written);
      const bad = templateProblem(check)(template);
      if (bad !== undefined) p.add(at(at(s, 'naming'), key), `${JSON.stringify(written)} ${bad}`);
      else naming[key] = template;
    }
    if (Object.keys(naming).length > 0) entry.naming = naming;
  }
  if (spec.enableWorkspacePaths !== undefined && spec.enableWorkspacePaths !== false) {
    p.add(at(s, 'enableWorkspacePaths'), notYet('workspace paths on service objects; the agent names a workspace by its logical cluster, which does not change when the workspace moves'));
  }
  if (spec.projection !== undefined) {
    const selected = (entry.crd as { versions?: readonly unknown[] } | undefined)?.versions;
    const projection = checkPublishedProjection(spec.projection, at(s, 'projection'), p, selected?.every((v) => typeof v === 'string') === true ? selected : undefined);
    if (projection !== undefined && Object.keys(projection).length > 0) entry.projection = projection;
  }
  if (spec.mutation !== undefined) {
    checkMutation(spec.mutation, at(s, 'mutation'), p);
    entry.mutation = spec.mutation;
  }
  const ids = new Set<string>();
  const related = list(spec, 'related', s, p)?.map((r, i) => checkRelated(r, `${at(s, 'related')}[${i}]`, p, ids));
  if (related !== undefined && related.length > 0) entry.related = related;
  if (spec.synchronization !== undefined) {
    const sync = mapping(spec.synchronization, at(s, 'synchronization'), ['enabled'], p);
    if (sync !== undefined && typeof sync.enabled !== 'boolean') p.add(at(at(s, 'synchronization'), 'enabled'), `expected true or false, got ${describe(sync.enabled)}`);
    if (sync?.enabled === false) {
      entry.sync = false;
      // Related objects travel with synced objects: with nothing synced they would be accepted and never done.
      if (related !== undefined && related.length > 0) p.add(at(s, 'related'), 'has no effect with synchronization.enabled: false (nothing is synced); remove it or enable synchronization');
    }
  }
  return p.list.length === before ? entry : undefined;
}

/**
 * The entries (in the agent's own form) of a file's PublishedResources that `selector` matches, each
 * carrying `from` (the file and the object's name) for later errors; every problem goes to `p`,
 * named by file, object and field (`dbs.yaml: PublishedResource "dbs": spec.projection.scope: ...`).
 * Documents that are empty are skipped; a List's items are read in order.
 *
 * @example
 * ```ts
 * const entries = publishedResourceEntries({ file: 'dbs.yaml', documents: loadAll(text) }, 'agent=a', problems, true);
 * ```
 * @param f - the file and its documents.
 * @param selector - the agent's `publishedResourceSelector`, if any.
 * @param p - where problems go.
 * @param isFile - false for an object written inline in `published` (then `f.file` is its path there).
 * @returns the matching entries that converted.
 */
export function publishedResourceEntries(f: PublishedResourceFile, selector: string | undefined, p: Problems, isFile: boolean): readonly Json[] {
  const matcher = selector === undefined ? undefined : parseLabelSelector(selector);
  const docs = f.documents.flatMap((d, i): { doc: unknown; where: string }[] => {
    const here = isFile ? `${f.file} document ${i + 1}` : f.file;
    if (d === null || d === undefined) return [];
    if (isMap(d) && (d.kind === 'List' || d.kind === 'PublishedResourceList') && Array.isArray(d.items)) return (d.items as readonly unknown[]).map((doc, j) => ({ doc, where: `${here} items[${j}]` }));
    return [{ doc: d, where: here }];
  });
  const out: Json[] = [];
  for (const { doc, where } of docs) {
    if (!isPublishedResource(doc) || !isMap(doc)) {
      p.add(where, `expected a PublishedResource (apiVersion ${publishedResourceApiVersion}), got ${isMap(doc) && typeof doc.kind === 'string' ? `a ${doc.kind}` : describe(doc)}`);
      continue;
    }
    const meta = isMap(doc.metadata) ? doc.metadata : undefined;
    const name = meta === undefined ? undefined : text(meta, 'name', `${where}: metadata`, p, identifierProblem, true);
    if (meta === undefined) p.add(`${where}: metadata.name`, 'required');
    const labels = meta !== undefined && isMap(meta.labels) ? (meta.labels as Readonly<Record<string, string>>) : {};
    if (matcher?.type === 'parsed' && !matcher.matches(labels)) continue;
    const named = name === undefined ? where : `${where} (PublishedResource "${name}")`;
    if (doc.apiVersion !== publishedResourceApiVersion) p.add(`${named}: apiVersion`, `expected ${publishedResourceApiVersion}, got ${describe(doc.apiVersion)}`);
    const entry = name === undefined ? undefined : convert(doc, named, name, p);
    if (entry !== undefined) out.push(entry);
  }
  return out;
}
