// The sync agent's configuration file, read once at start: every field is checked and every problem
// is reported at once, each with its path (`published[1].related[0].origin: ...`), so a user fixes
// the file in one round. Defaults are not filled in: the returned config is what was written, and
// each default is documented on its field in types.ts (and named in labels.ts and naming.ts).
import { JSON_SCHEMA, load } from 'js-yaml';
import { ConfigError } from 'rxfleet';
import type { Json } from './config-check.js';
import { Problems, at, checkProjection, describe, dns1035Problem, identifierProblem, kindProblem, list, mapping, selectorProblem, templateProblem, text } from './config-check.js';
import { checkMutation } from './mutation-config.js';
import { checkRelatedOptions } from './related-options-check.js';
import { checkRelatedNamespace } from './related-namespace.js';
import { checkAdopt } from './adopt-config.js';
import { checkInstallations } from './installations-config.js';
import { dnsLabelProblem, dnsSubdomainProblem } from './naming.js';
import { pathProblem } from './object-path.js';
import type { PublishedResourceFile } from './published-resource.js';
import { isPublishedResource, publishedResourceEntries } from './published-resource.js';
import { relatedReferenceProblem } from './related-places.js';
import { checkIdentityHash, checkRelatedGvr, checkRelatedProjection } from './related-gvr-check.js';
import { checkRegex, checkSelector } from './related-selector-check.js';
import type { PublishedResource, SyncConfig } from './types.js';

function keyPatternProblem(s: string): string | undefined {
  if (s === '' || s === '*') return s === '' ? 'must not be empty' : undefined;
  return s.includes('*') && s.indexOf('*') !== s.length - 1 ? '"*" is only allowed at the end (a prefix match)' : undefined;
}

function patterns(m: Json, key: string, path: string, p: Problems): void {
  list(m, key, path, p)?.forEach((v, i) => {
    if (typeof v !== 'string') p.add(`${at(path, key)}[${i}]`, `expected a string, got ${describe(v)}`);
    else if (keyPatternProblem(v) !== undefined) p.add(`${at(path, key)}[${i}]`, `${JSON.stringify(v)} ${keyPatternProblem(v) ?? ''}`);
  });
}

function checkCrd(v: unknown, path: string, p: Problems): void {
  const m = mapping(v, path, ['group', 'kind', 'versions'], p);
  if (m === undefined) return;
  text(m, 'group', path, p, dnsSubdomainProblem, true);
  text(m, 'kind', path, p, kindProblem, true);
  const seen = new Set<string>();
  list(m, 'versions', path, p, 'must not be empty; leave it out to publish every served version')?.forEach((version, i) => {
    const where = `${path}.versions[${i}]`;
    if (typeof version !== 'string') p.add(where, `expected a version name, got ${describe(version)}`);
    else if (dns1035Problem(version) !== undefined) p.add(where, `${JSON.stringify(version)} is not a version name (e.g. "v1", "v1beta1")`);
    else if (seen.has(version)) p.add(where, `${JSON.stringify(version)} is listed twice`);
    if (typeof version === 'string') seen.add(version);
  });
}

function checkRelated(v: unknown, path: string, p: Problems, identifiers: Map<string, string>): void {
  const m = mapping(v, path, ['identifier', 'origin', 'group', 'version', 'resource', 'kind', 'identityHash', 'projection', 'object', 'mutation', 'syncStatus', 'cleanup'], p);
  if (m === undefined) return;
  checkRelatedOptions(m, path, p, 'agent');
  const id = text(m, 'identifier', path, p, identifierProblem, true);
  const first = id === undefined ? undefined : identifiers.get(id);
  if (id !== undefined && first !== undefined) p.add(`${path}.identifier`, `"${id}" is already the identifier of ${first}`);
  if (id !== undefined && first === undefined) identifiers.set(id, path);
  text(m, 'origin', path, p, (s) => (s === 'service' || s === 'kcp' ? undefined : 'is not an origin: expected "service" or "kcp"'), true);
  checkIdentityHash(m, path, p, checkRelatedGvr(m, path, p));
  checkRelatedProjection(m, path, p);
  const where = `${path}.object`;
  const o = m.object === undefined ? undefined : mapping(m.object, where, ['path', 'regex', 'template', 'selector', 'namespace'], p);
  if (o?.namespace !== undefined) {
    if (o.selector !== undefined) p.add(`${where}.namespace`, 'not with selector: a selector finds objects in the primary object\'s namespace');
    else checkRelatedNamespace(o.namespace, `${where}.namespace`, p, 'agent');
  }
  if (m.object === undefined || (o !== undefined && [o.path, o.template, o.selector].filter((x) => x !== undefined).length !== 1)) {
    p.add(where, `${m.object === undefined ? 'required: ' : ''}give exactly one of \`path\` (a dotted field of the primary), \`template\` or \`selector\``);
  } else if (o?.selector !== undefined) {
    checkSelector(o.selector, `${where}.selector`, p, 'agent');
  } else if (o !== undefined) {
    const path = text(o, 'path', where, p, pathProblem);
    if (o.regex !== undefined) checkRegex(o.regex, `${where}.regex`, p, path !== undefined);
    const template = text(o, 'template', where, p, templateProblem(dnsSubdomainProblem));
    const unsafe = path !== undefined ? relatedReferenceProblem({ path }) : template !== undefined ? relatedReferenceProblem({ template }) : undefined;
    if (unsafe !== undefined) p.add(where, unsafe);
  }
}

function checkPublished(v: unknown, path: string, p: Problems, names: Map<string, string>): void {
  const keys = ['name', 'crd', 'projection', 'naming', 'filter', 'syncDown', 'syncUp', 'related', 'mutation', 'adopt', 'sync', 'from'];
  const m = mapping(v, path, keys, p);
  if (m === undefined) return;
  const name = text(m, 'name', path, p, identifierProblem, true);
  const first = name === undefined ? undefined : names.get(name);
  if (name !== undefined && first !== undefined) p.add(`${path}.name`, `"${name}" is already the name of ${first}`);
  if (name !== undefined && first === undefined) names.set(name, path);
  if (m.crd === undefined) p.add(`${path}.crd`, 'required: the CRD to publish, { group, kind }');
  else checkCrd(m.crd, `${path}.crd`, p);
  const projection = m.projection === undefined ? undefined : mapping(m.projection, `${path}.projection`, ['group', 'plural', 'kind', 'shortNames', 'categories', 'scope', 'versions'], p);
  if (projection !== undefined) checkProjection(projection, `${path}.projection`, p);
  const naming = m.naming === undefined ? undefined : mapping(m.naming, `${path}.naming`, ['namespace', 'name'], p);
  if (naming !== undefined) {
    text(naming, 'namespace', `${path}.naming`, p, templateProblem(dnsLabelProblem));
    text(naming, 'name', `${path}.naming`, p, templateProblem(dnsSubdomainProblem));
  }
  const filter = m.filter === undefined ? undefined : mapping(m.filter, `${path}.filter`, ['namespace', 'labelSelector', 'release'], p);
  if (filter !== undefined) {
    text(filter, 'namespace', `${path}.filter`, p, dnsLabelProblem);
    text(filter, 'labelSelector', `${path}.filter`, p, selectorProblem);
    text(filter, 'release', `${path}.filter`, p, (s) => (s === 'delete' || s === 'keep' ? undefined : 'is not a release: expected "delete" (the default) or "keep"'));
  }
  const down = m.syncDown === undefined ? undefined : mapping(m.syncDown, `${path}.syncDown`, ['labels', 'annotations'], p);
  if (down !== undefined) {
    patterns(down, 'labels', `${path}.syncDown`, p);
    patterns(down, 'annotations', `${path}.syncDown`, p);
  }
  const up = m.syncUp === undefined ? undefined : mapping(m.syncUp, `${path}.syncUp`, ['status'], p);
  if (up?.status !== undefined && typeof up.status !== 'boolean') p.add(`${path}.syncUp.status`, `expected true or false, got ${describe(up.status)}`);
  const identifiers = new Map<string, string>();
  list(m, 'related', path, p)?.forEach((r, i) => {
    checkRelated(r, `${path}.related[${i}]`, p, identifiers);
  });
  if (m.mutation !== undefined) checkMutation(m.mutation, `${path}.mutation`, p);
  if (m.adopt !== undefined) checkAdopt(m, path, p);
  if (m.sync !== undefined && typeof m.sync !== 'boolean') p.add(`${path}.sync`, `expected true or false, got ${describe(m.sync)}`);
  // Published without syncing: what only travels with synced objects would be accepted and never done.
  for (const k of ['related', 'adopt'] as const) if (m.sync === false && m[k] !== undefined) p.add(`${path}.${k}`, 'has no effect with sync: false (nothing is synced); remove it or sync');
  text(m, 'from', path, p, () => undefined);
}

/**
 * Every problem of a sync configuration (an already-parsed object), each as `<path>: <what is
 * wrong>`; empty when it is usable. What needs the clusters (an unknown CRD, a version not served,
 * two entries projecting to one kcp resource) is the preflight's to check.
 *
 * @example
 * ```ts
 * syncConfigProblems({ apiExport: 'db.example.dev', published: [{ name: 'db', crd: { group: 'db.example.dev', kind: 'Database' }, syncUp: { status: 'yes' } }] });
 * // ['published[0].syncUp.status: expected true or false, got the string "yes"']
 * ```
 * @param input - the configuration as data (from YAML, JSON or code).
 * @param files - PublishedResource files read by the caller, their problems named by file.
 * @returns the problems, in the order of the file.
 */
export function syncConfigProblems(input: unknown, files: readonly PublishedResourceFile[] = []): readonly string[] {
  return resolve(input, files).problems;
}

// The config with every PublishedResource converted into an entry of the agent's own form, and
// every problem of both: the one way either form becomes the published list.
function resolve(input: unknown, files: readonly PublishedResourceFile[]): { readonly problems: readonly string[]; readonly config?: SyncConfig } {
  const p = new Problems();
  const m = mapping(input, '', ['agentName', 'apiExport', 'installations', 'published', 'publishedResources', 'publishedResourceSelector', 'watchPublishedResources'], p);
  if (m === undefined) return { problems: p.list.map((s) => `the configuration: ${s}`) };
  text(m, 'agentName', '', p, identifierProblem);
  text(m, 'apiExport', '', p, dnsSubdomainProblem, true);
  if (m.installations !== undefined) checkInstallations(m, p);
  const selector = text(m, 'publishedResourceSelector', '', p, selectorProblem);
  list(m, 'publishedResources', '', p)?.forEach((f, i) => {
    if (typeof f !== 'string' || f === '') p.add(`publishedResources[${i}]`, `expected a file path, got ${describe(f)}`);
  });
  if (m.watchPublishedResources !== undefined && typeof m.watchPublishedResources !== 'boolean') p.add('watchPublishedResources', `expected true or false, got ${describe(m.watchPublishedResources)}`);
  const elsewhere = files.length > 0 || m.publishedResources !== undefined || m.watchPublishedResources === true;
  const written = list(m, 'published', '', p, elsewhere ? undefined : 'must list at least one resource to publish') ?? [];
  const published: unknown[] = [];
  written.forEach((e, i) => {
    if (!isPublishedResource(e)) published.push(e);
    else published.push(...publishedResourceEntries({ file: `published[${i}]`, documents: [e] }, selector, p, false));
  });
  for (const f of files) published.push(...publishedResourceEntries(f, selector, p, true));
  const names = new Map<string, string>();
  if (m.published === undefined && !elsewhere) p.add('published', 'required: the list of resources to publish');
  else if (published.length === 0 && p.list.length === 0 && m.watchPublishedResources !== true) p.add('published', 'no published resource is left (check publishedResourceSelector)');
  published.forEach((e, i) => {
    const from = (e as { from?: unknown }).from;
    checkPublished(e, typeof from === 'string' ? from : `published[${i}]`, p, names);
  });
  return p.list.length > 0 ? { problems: p.list } : { problems: [], config: { ...(m as unknown as SyncConfig), published: published as PublishedResource[] } };
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Reads and checks a sync configuration: YAML or JSON text (a string), or data already parsed. The
 * result is a frozen copy of what was written, except that each api-syncagent PublishedResource
 * (written in `published`, or read from `files`) is converted into an entry of the agent's own form
 * and those `publishedResourceSelector` does not match are left out; defaults stay unfilled (see
 * each field's doc).
 *
 * @example
 * ```ts
 * const config: SyncConfig = parseSyncConfig(fs.readFileSync('sync.yaml', 'utf8'), 'sync.yaml');
 * ```
 * @param input - the text, or the configuration as data.
 * @param from - what to call it in errors, e.g. the file's path.
 * @param files - PublishedResource files read by the caller (see `syncOptions`), their problems named by file.
 * @returns the configuration.
 * @throws ConfigError listing every problem, one per line with its path.
 */
export function parseSyncConfig(input: unknown, from = 'sync config', files: readonly PublishedResourceFile[] = []): SyncConfig {
  let data = input;
  if (typeof input === 'string') {
    try {
      // The JSON schema keeps `2024-01-01` and the like as strings rather than dates.
      data = load(input, { schema: JSON_SCHEMA, filename: from });
    } catch (err) {
      throw new ConfigError(`${from}: not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const { problems, config } = resolve(data, files);
  if (config === undefined) {
    const n = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
    throw new ConfigError(`${from}: ${n} in the sync configuration:\n${problems.map((s) => `  - ${s}`).join('\n')}`);
  }
  return deepFreeze(structuredClone(config));
}
