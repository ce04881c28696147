// The sync agent's configuration file, read once at start: every field is checked and every problem
// is reported at once, each with its path (`published[1].related[0].origin: ...`), so a user fixes
// the file in one round. Defaults are not filled in: the returned config is what was written, and
// each default is documented on its field in types.ts (and named in labels.ts and naming.ts).
import { JSON_SCHEMA, load } from 'js-yaml';
import { ConfigError } from 'rxfleet';
import { dnsLabelProblem, dnsSubdomainProblem } from './naming.js';
import { parseLabelSelector } from './label-selector.js';
import { pathProblem } from './object-path.js';
import { relatedReferenceProblem } from './related-places.js';
import { parseTemplate } from './template.js';
import type { SyncConfig } from './types.js';

type Json = Readonly<Record<string, unknown>>;

// Problems found so far; each check adds `<path>: <what is wrong>` and carries on.
class Problems {
  readonly list: string[] = [];
  add(path: string, what: string): void {
    this.list.push(`${path}: ${what}`);
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `the string ${JSON.stringify(v)}` : `${typeof v} ${JSON.stringify(v)}`;
}

function mapping(v: unknown, path: string, keys: readonly string[], p: Problems): Json | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.add(path, `expected a mapping with ${keys.join(', ')}, got ${describe(v)}`);
    return undefined;
  }
  for (const k of Object.keys(v)) if (!keys.includes(k)) p.add(path === '' ? k : `${path}.${k}`, `unknown field; expected one of ${keys.join(', ')}`);
  return v as Json;
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

// A string field: absent is fine unless required; present must be a string the check accepts.
function text(m: Json, key: string, path: string, p: Problems, check: (s: string) => string | undefined, required = false): string | undefined {
  const v = m[key];
  if (v === undefined) {
    if (required) p.add(at(path, key), 'required');
    return undefined;
  }
  if (typeof v !== 'string') {
    p.add(at(path, key), `expected a string, got ${describe(v)}`);
    return undefined;
  }
  const problem = check(v);
  if (problem !== undefined) p.add(at(path, key), `${JSON.stringify(v)} ${problem}`);
  return problem === undefined ? v : undefined;
}

// A list field; `ifEmpty` says why an empty list is refused, when it is.
function list(m: Json, key: string, path: string, p: Problems, ifEmpty?: string): readonly unknown[] | undefined {
  const v = m[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) p.add(at(path, key), `expected a list, got ${describe(v)}`);
  else if (ifEmpty !== undefined && v.length === 0) p.add(at(path, key), ifEmpty);
  return Array.isArray(v) ? (v as readonly unknown[]) : undefined;
}

const labelValue = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** A name used as a label value, a finalizer's suffix or in a controller name. */
function identifierProblem(s: string): string | undefined {
  if (s === '') return 'must not be empty';
  if (s.length > 63) return `is ${s.length} characters, more than 63 (it is used as a label value)`;
  return labelValue.test(s) ? undefined : 'must be letters, digits, "-", "_" and ".", starting and ending with a letter or digit (it is used as a label value)';
}

function dns1035Problem(s: string): string | undefined {
  if (s.length > 63) return `is ${s.length} characters, more than 63`;
  return dns1035.test(s) ? undefined : 'must be lowercase letters, digits and "-", starting with a letter and ending with a letter or digit';
}

// Kubernetes accepts a CRD kind whose lowercase form is a DNS-1035 label.
function kindProblem(s: string): string | undefined {
  return dns1035.test(s.toLowerCase()) && s.length <= 63 ? undefined : 'is not a kind: letters, digits and "-", starting with a letter (e.g. "Database")';
}

function templateProblem(literalCheck: (s: string) => string | undefined): (s: string) => string | undefined {
  return (s) => {
    if (s.trim() === '') return 'must not be empty; leave it out for the default';
    const r = parseTemplate(s);
    if (r.type === 'invalid') return `does not compile: ${r.message}`;
    // A template without actions is a fixed name: check it now rather than per object.
    const fixed = s.includes('{{') ? undefined : literalCheck(s.trim());
    return fixed === undefined ? undefined : `is a fixed name that ${fixed}`;
  };
}

function selectorProblem(s: string): string | undefined {
  if (s.trim() === '') return 'must not be empty; leave it out to sync every object';
  const r = parseLabelSelector(s);
  return r.type === 'invalid' ? `is not a label selector: it ${r.message}` : undefined;
}

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
  const m = mapping(v, path, ['identifier', 'origin', 'kind', 'object'], p);
  if (m === undefined) return;
  const id = text(m, 'identifier', path, p, identifierProblem, true);
  const first = id === undefined ? undefined : identifiers.get(id);
  if (id !== undefined && first !== undefined) p.add(`${path}.identifier`, `"${id}" is already the identifier of ${first}`);
  if (id !== undefined && first === undefined) identifiers.set(id, path);
  text(m, 'origin', path, p, (s) => (s === 'service' || s === 'kcp' ? undefined : 'is not an origin: expected "service" or "kcp"'), true);
  text(m, 'kind', path, p, (s) => (s === 'Secret' || s === 'ConfigMap' ? undefined : 'is not supported: expected "Secret" or "ConfigMap"'), true);
  const where = `${path}.object`;
  const o = m.object === undefined ? undefined : mapping(m.object, where, ['path', 'template'], p);
  if (m.object === undefined || (o !== undefined && (o.path === undefined) === (o.template === undefined))) {
    p.add(where, `${m.object === undefined ? 'required: ' : ''}give exactly one of \`path\` (a dotted field of the primary) or \`template\``);
  } else if (o !== undefined) {
    const path = text(o, 'path', where, p, pathProblem);
    const template = text(o, 'template', where, p, templateProblem(dnsSubdomainProblem));
    const unsafe = path !== undefined ? relatedReferenceProblem({ path }) : template !== undefined ? relatedReferenceProblem({ template }) : undefined;
    if (unsafe !== undefined) p.add(where, unsafe);
  }
}

function checkPublished(v: unknown, path: string, p: Problems, names: Map<string, string>): void {
  const keys = ['name', 'crd', 'projection', 'naming', 'filter', 'syncDown', 'syncUp', 'related'];
  const m = mapping(v, path, keys, p);
  if (m === undefined) return;
  const name = text(m, 'name', path, p, identifierProblem, true);
  const first = name === undefined ? undefined : names.get(name);
  if (name !== undefined && first !== undefined) p.add(`${path}.name`, `"${name}" is already the name of ${first}`);
  if (name !== undefined && first === undefined) names.set(name, path);
  if (m.crd === undefined) p.add(`${path}.crd`, 'required: the CRD to publish, { group, kind }');
  else checkCrd(m.crd, `${path}.crd`, p);
  const projection = m.projection === undefined ? undefined : mapping(m.projection, `${path}.projection`, ['group', 'plural', 'kind'], p);
  if (projection !== undefined) {
    text(projection, 'group', `${path}.projection`, p, dnsSubdomainProblem);
    text(projection, 'plural', `${path}.projection`, p, dns1035Problem);
    text(projection, 'kind', `${path}.projection`, p, kindProblem);
  }
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
 * @returns the problems, in the order of the file.
 */
export function syncConfigProblems(input: unknown): readonly string[] {
  const p = new Problems();
  const m = mapping(input, '', ['agentName', 'apiExport', 'published'], p);
  if (m === undefined) return p.list.map((s) => `the configuration${s}`);
  text(m, 'agentName', '', p, identifierProblem);
  text(m, 'apiExport', '', p, dnsSubdomainProblem, true);
  if (m.published === undefined) p.add('published', 'required: the list of resources to publish');
  const names = new Map<string, string>();
  list(m, 'published', '', p, 'must list at least one resource to publish')?.forEach((e, i) => {
    checkPublished(e, `published[${i}]`, p, names);
  });
  return p.list;
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
 * result is a frozen copy of what was written; defaults stay unfilled (see each field's doc).
 *
 * @example
 * ```ts
 * const config: SyncConfig = parseSyncConfig(fs.readFileSync('sync.yaml', 'utf8'), 'sync.yaml');
 * ```
 * @param input - the text, or the configuration as data.
 * @param from - what to call it in errors, e.g. the file's path.
 * @returns the configuration.
 * @throws ConfigError listing every problem, one per line with its path.
 */
export function parseSyncConfig(input: unknown, from = 'sync config'): SyncConfig {
  let data = input;
  if (typeof input === 'string') {
    try {
      // The JSON schema keeps `2024-01-01` and the like as strings rather than dates.
      data = load(input, { schema: JSON_SCHEMA, filename: from });
    } catch (err) {
      throw new ConfigError(`${from}: not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const problems = syncConfigProblems(data);
  if (problems.length > 0) {
    const n = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
    throw new ConfigError(`${from}: ${n} in the sync configuration:\n${problems.map((s) => `  - ${s}`).join('\n')}`);
  }
  return deepFreeze(structuredClone(data) as SyncConfig);
}
