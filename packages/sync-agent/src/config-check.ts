// The checks every configuration format shares (the agent's own file and api-syncagent's
// PublishedResource): each adds `<path>: <what is wrong>` to one list and carries on, so a user
// sees every problem of a file in one round.
import { parseLabelSelector } from './label-selector.js';
import { dnsSubdomainProblem } from './naming.js';
import { parseTemplate } from './template.js';
import { versionNameProblem } from './version-names.js';

/** A plain mapping read from YAML or JSON. */
export type Json = Readonly<Record<string, unknown>>;

/**
 * The problems found so far in one configuration, each `<path>: <what is wrong>`.
 *
 * @example
 * ```ts
 * const p = new Problems();
 * p.add('published[0].name', 'required');
 * p.list; // ['published[0].name: required']
 * ```
 */
export class Problems {
  /** Every problem, in the order found. */
  readonly list: string[] = [];
  /**
   * Adds one problem.
   *
   * @example
   * ```ts
   * new Problems().add('apiExport', 'required');
   * ```
   * @param path - the field's path.
   * @param what - what is wrong with it.
   */
  add(path: string, what: string): void {
    this.list.push(path === '' ? what : `${path}: ${what}`);
  }
}

/**
 * A value in words, for "expected X, got Y".
 *
 * @example
 * ```ts
 * describe([1]); // 'a list'
 * ```
 * @param v - any value read from YAML.
 * @returns what it is.
 */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `the string ${JSON.stringify(v)}` : `${typeof v} ${JSON.stringify(v)}`;
}

/**
 * `path.key`, or `key` at the top.
 *
 * @example
 * ```ts
 * at('spec', 'resource'); // 'spec.resource'
 * ```
 * @param path - the parent's path.
 * @param key - the field.
 * @returns the field's path.
 */
export function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * A mapping whose keys are all known; each unknown key is a problem of its own (`refuse` says why,
 * when a key is known but not supported).
 *
 * @example
 * ```ts
 * const m = mapping(value, 'published[0]', ['name', 'source'], problems);
 * ```
 * @param v - the value.
 * @param path - its path.
 * @param keys - the keys it may have.
 * @param p - where problems go.
 * @param refuse - known keys that are refused, with the reason.
 * @returns the mapping, or `undefined` when it is not one.
 */
export function mapping(v: unknown, path: string, keys: readonly string[], p: Problems, refuse: Readonly<Record<string, string>> = {}): Json | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.add(path, `expected a mapping with ${keys.join(', ')}, got ${describe(v)}`);
    return undefined;
  }
  for (const k of Object.keys(v)) {
    const why = Object.hasOwn(refuse, k) ? refuse[k] : undefined;
    if (why !== undefined) p.add(at(path, k), why);
    else if (!keys.includes(k)) p.add(at(path, k), `unknown field; expected one of ${keys.join(', ')}`);
  }
  return v as Json;
}

/**
 * A string field: absent is fine unless required; present must be a string the check accepts.
 *
 * @example
 * ```ts
 * const group = text(m, 'group', 'source', problems, dnsSubdomainProblem, true);
 * ```
 * @param m - the mapping.
 * @param key - the field.
 * @param path - the mapping's path.
 * @param p - where problems go.
 * @param check - what is wrong with a string, or `undefined`.
 * @param required - whether it must be there.
 * @returns the string when it is usable.
 */
export function text(m: Json, key: string, path: string, p: Problems, check: (s: string) => string | undefined, required = false): string | undefined {
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

/**
 * A list field; `ifEmpty` says why an empty list is refused, when it is.
 *
 * @example
 * ```ts
 * list(m, 'versions', 'source', problems, 'must not be empty');
 * ```
 * @param m - the mapping.
 * @param key - the field.
 * @param path - the mapping's path.
 * @param p - where problems go.
 * @param ifEmpty - why an empty list is refused.
 * @returns the list, or `undefined`.
 */
export function list(m: Json, key: string, path: string, p: Problems, ifEmpty?: string): readonly unknown[] | undefined {
  const v = m[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) p.add(at(path, key), `expected a list, got ${describe(v)}`);
  else if (ifEmpty !== undefined && v.length === 0) p.add(at(path, key), ifEmpty);
  return Array.isArray(v) ? (v as readonly unknown[]) : undefined;
}

const labelValue = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * What is wrong with a name used as a label value, a finalizer's suffix or in a controller name.
 *
 * @example
 * ```ts
 * identifierProblem('db'); // undefined
 * ```
 * @param s - the name.
 * @returns the problem, or `undefined`.
 */
export function identifierProblem(s: string): string | undefined {
  if (s === '') return 'must not be empty';
  if (s.length > 63) return `is ${s.length} characters, more than 63 (it is used as a label value)`;
  return labelValue.test(s) ? undefined : 'must be letters, digits, "-", "_" and ".", starting and ending with a letter or digit (it is used as a label value)';
}

/**
 * What is wrong with a DNS-1035 label (a plural, a version), or `undefined`.
 *
 * @example
 * ```ts
 * dns1035Problem('databases'); // undefined
 * ```
 * @param s - the name.
 * @returns the problem, or `undefined`.
 */
export function dns1035Problem(s: string): string | undefined {
  if (s.length > 63) return `is ${s.length} characters, more than 63`;
  return dns1035.test(s) ? undefined : 'must be lowercase letters, digits and "-", starting with a letter and ending with a letter or digit';
}

/**
 * What is wrong with a kind (Kubernetes accepts one whose lowercase form is a DNS-1035 label).
 *
 * @example
 * ```ts
 * kindProblem('Database'); // undefined
 * ```
 * @param s - the kind.
 * @returns the problem, or `undefined`.
 */
export function kindProblem(s: string): string | undefined {
  return dns1035.test(s.toLowerCase()) && s.length <= 63 ? undefined : 'is not a kind: letters, digits and "-", starting with a letter (e.g. "Database")';
}

/**
 * A check of a naming template: it compiles, and a template without actions is a fixed name that
 * `literalCheck` accepts.
 *
 * @example
 * ```ts
 * text(naming, 'namespace', 'naming', problems, templateProblem(dnsLabelProblem));
 * ```
 * @param literalCheck - the check of a fixed name.
 * @returns the check.
 */
export function templateProblem(literalCheck: (s: string) => string | undefined): (s: string) => string | undefined {
  return (s) => {
    if (s.trim() === '') return 'must not be empty; leave it out for the default';
    const r = parseTemplate(s);
    if (r.type === 'invalid') return `does not compile: ${r.message}`;
    const fixed = s.includes('{{') ? undefined : literalCheck(s.trim());
    return fixed === undefined ? undefined : `is a fixed name that ${fixed}`;
  };
}

/**
 * What is wrong with a label selector string (`kubectl -l` syntax), or `undefined`.
 *
 * @example
 * ```ts
 * selectorProblem('tier=prod'); // undefined
 * ```
 * @param s - the selector.
 * @returns the problem, or `undefined`.
 */
export function selectorProblem(s: string): string | undefined {
  if (s.trim() === '') return 'must not be empty; leave it out to sync every object';
  const r = parseLabelSelector(s);
  return r.type === 'invalid' ? `is not a label selector: it ${r.message}` : undefined;
}

/**
 * Checks a projection's names and version renames (the agent's own form; a PublishedResource's is
 * converted to it).
 *
 * @example
 * ```ts
 * checkProjection({ kind: 'Sertifikat', shortNames: ['sert'], versions: { v1: 'v1beta1' } }, 'published[0].projection', problems);
 * ```
 * @param m - the projection.
 * @param path - its path.
 * @param p - where problems go.
 */
export function checkProjection(m: Json, path: string, p: Problems): void {
  text(m, 'scope', path, p, (s) => (s === 'Cluster' || s === 'Namespaced' ? undefined : 'is not a scope: Cluster or Namespaced'));
  // Service version → kcp version; whether each key is a published version needs the CRD (preflight).
  const renames = m.versions === undefined ? undefined : mapping(m.versions, at(path, 'versions'), typeof m.versions === 'object' && m.versions !== null ? Object.keys(m.versions) : ['<service version>'], p);
  for (const k of Object.keys(renames ?? {})) text(renames ?? {}, k, at(path, 'versions'), p, versionNameProblem);
  text(m, 'group', path, p, dnsSubdomainProblem);
  text(m, 'plural', path, p, dns1035Problem);
  text(m, 'kind', path, p, kindProblem);
  for (const key of ['shortNames', 'categories']) {
    list(m, key, path, p)?.forEach((v, i) => {
      if (typeof v !== 'string') p.add(`${at(path, key)}[${i}]`, `expected a string, got ${describe(v)}`);
      else if (dns1035Problem(v) !== undefined) p.add(`${at(path, key)}[${i}]`, `${JSON.stringify(v)} ${dns1035Problem(v) ?? ''}`);
    });
  }
}
