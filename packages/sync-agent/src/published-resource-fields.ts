// The parts of a PublishedResource whose form differs from the agent's own: a metav1.LabelSelector
// (turned into the `kubectl -l` string the agent matches), naming rules in the deprecated
// `$remote...` form (turned into the templates api-syncagent documents as their replacements), and
// the projection (its version renames, deprecated `version` included, as a map).
import type { Json, Problems } from './config-check.js';
import { at, checkProjection, describe, list, mapping, text } from './config-check.js';
import { parseLabelSelector } from './label-selector.js';
import { dnsLabelProblem } from './naming.js';
import { versionNameProblem } from './version-names.js';

// Longest first: `$remoteNamespaceHash` before `$remoteNamespace`.
const legacy: readonly (readonly [string, string])[] = [
  ['$remoteClusterName', '{{ .ClusterName }}'],
  ['$remoteNamespaceHash', '{{ .Object.metadata.namespace | shortHash }}'],
  ['$remoteNamespace', '{{ .Object.metadata.namespace }}'],
  ['$remoteNameHash', '{{ .Object.metadata.name | shortHash }}'],
  ['$remoteName', '{{ .Object.metadata.name }}'],
];

/**
 * A naming rule with api-syncagent's deprecated placeholders replaced by the templates its docs give
 * for them (`$remoteNameHash` → `{{ .Object.metadata.name | shortHash }}`), so objects land where
 * api-syncagent put them. A rule with `{{` is already a template and is kept as it is.
 *
 * @example
 * ```ts
 * legacyNaming('$remoteClusterName-$remoteNameHash'); // '{{ .ClusterName }}-{{ .Object.metadata.name | shortHash }}'
 * ```
 * @param rule - the rule as written.
 * @returns the template.
 */
export function legacyNaming(rule: string): string {
  if (rule.includes('{{')) return rule;
  return legacy.reduce((s, [from, to]) => s.replaceAll(from, to), rule);
}

const operators: Readonly<Record<string, string>> = { In: 'in', NotIn: 'notin' };

/**
 * A metav1.LabelSelector (`matchLabels`, `matchExpressions`) as the `kubectl -l` string the agent's
 * filter takes: `matchLabels` as `k=v`, `In`/`NotIn` as set requirements, `Exists` as `k`,
 * `DoesNotExist` as `!k`. An empty selector is `''` (everything).
 *
 * @example
 * ```ts
 * selectorString({ matchLabels: { tier: 'prod' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }] }, 'spec.filter.resource', problems);
 * // 'tier=prod,env in (a,b)'
 * ```
 * @param v - the selector as read.
 * @param path - its path.
 * @param p - where problems go.
 * @returns the selector string, or `undefined` when it is not usable.
 */
export function selectorString(v: unknown, path: string, p: Problems): string | undefined {
  const m = mapping(v, path, ['matchLabels', 'matchExpressions'], p);
  if (m === undefined) return undefined;
  const before = p.list.length;
  const parts: string[] = [];
  const labels = m.matchLabels === undefined ? {} : mapping(m.matchLabels, at(path, 'matchLabels'), Object.keys(m.matchLabels as object), p);
  for (const [k, val] of Object.entries(labels ?? {})) {
    if (typeof val !== 'string') p.add(at(at(path, 'matchLabels'), k), `expected a string, got ${describe(val)}`);
    else parts.push(`${k}=${val}`);
  }
  list(m, 'matchExpressions', path, p)?.forEach((e, i) => {
    const where = `${at(path, 'matchExpressions')}[${i}]`;
    const x = mapping(e, where, ['key', 'operator', 'values'], p);
    if (x === undefined) return;
    const key = text(x, 'key', where, p, () => undefined, true);
    const op = text(x, 'operator', where, p, (s) => (['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(s) ? undefined : 'is not an operator: In, NotIn, Exists or DoesNotExist'), true);
    const values = list(x, 'values', where, p) ?? [];
    if (key === undefined || op === undefined) return;
    if (values.some((s) => typeof s !== 'string')) p.add(at(where, 'values'), 'expected a list of strings');
    else if ((op === 'In' || op === 'NotIn') !== values.length > 0) p.add(at(where, 'values'), op === 'In' || op === 'NotIn' ? `${op} needs at least one value` : `${op} takes no values`);
    else parts.push(op === 'Exists' ? key : op === 'DoesNotExist' ? `!${key}` : `${key} ${operators[op] ?? ''} (${values.join(',')})`);
  });
  if (p.list.length !== before) return undefined;
  const s = parts.join(',');
  const parsed = s === '' ? undefined : parseLabelSelector(s);
  if (parsed?.type === 'invalid') p.add(path, `is not a label selector: it ${parsed.message}`);
  return parsed?.type === 'invalid' ? undefined : s;
}

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A PublishedResource's projection in the agent's form: group, kind, plural, shortNames and
 * categories as they are (a kind without a plural gets api-syncagent's: the kind in lowercase
 * with an "s"); `scope` kept for preflight (which refuses what a change of scope cannot carry);
 * `versions` (service version → kcp version) kept, each version mapped to itself left out; the
 * deprecated `version` as a rename of the one version `spec.resource` names (api-syncagent allows
 * it with one selected version only).
 *
 * @example
 * ```ts
 * checkPublishedProjection({ kind: 'Sertifikat', version: 'v1beta1' }, 'x.yaml: spec.projection', problems, ['v1']);
 * // { kind: 'Sertifikat', plural: 'sertifikats', versions: { v1: 'v1beta1' } }
 * ```
 * @param v - the projection as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param selected - the versions `spec.resource` names (`version`, or `versions`), if it names any.
 * @returns the projection, or `undefined` when it is not usable.
 */
export function checkPublishedProjection(v: unknown, path: string, p: Problems, selected?: readonly string[]): Json | undefined {
  const m = mapping(v, path, ['group', 'kind', 'plural', 'shortNames', 'categories', 'scope', 'version', 'versions'], p);
  if (m === undefined) return undefined;
  const before = p.list.length;
  const names: Record<string, unknown> = Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'version' && k !== 'versions'));
  const renames = isMap(m.versions) ? Object.entries(m.versions).filter(([from, to]) => from !== to) : [];
  if (m.versions !== undefined && !isMap(m.versions)) names.versions = m.versions; // checkProjection says what it is
  else if (renames.length > 0) names.versions = Object.fromEntries(renames);
  if (m.version !== undefined) {
    const one = text(m, 'version', path, p, versionNameProblem);
    if (m.versions !== undefined) p.add(path, 'give versions, or version (deprecated), not both');
    else if (selected?.length !== 1) p.add(at(path, 'version'), `renames the one published version, so spec.resource must name exactly one (it names ${selected === undefined ? 'none: every served version is published' : selected.join(', ')}); or write spec.projection.versions: { <service version>: ${typeof m.version === 'string' ? m.version : '<name in kcp>'} }`);
    else if (one !== undefined && selected[0] !== undefined && one !== selected[0]) names.versions = { [selected[0]]: one };
  }
  // api-syncagent derives the plural of a new kind (lowercase + "s") unless one is given.
  if (typeof names.kind === 'string' && names.plural === undefined) names.plural = `${names.kind.toLowerCase()}s`;
  checkProjection(names, path, p);
  return p.list.length === before ? names : undefined;
}

const nameLabel = 'kubernetes.io/metadata.name';

/**
 * A PublishedResource's `spec.filter.namespace` (a label selector on the consumer's namespaces) in
 * the agent's form: the one namespace it names by its `kubernetes.io/metadata.name` label (the
 * label the API server sets on every namespace), or none for an empty selector (every namespace).
 * Any other selector is refused: the agent does not read consumer namespaces, which would need a
 * permission claim on them that every consumer must accept.
 *
 * @example
 * ```ts
 * namespaceFilter({ matchLabels: { 'kubernetes.io/metadata.name': 'apps' } }, 'x.yaml: spec.filter.namespace', problems); // 'apps'
 * ```
 * @param v - the selector as read.
 * @param path - its path.
 * @param p - where problems go.
 * @returns the namespace, `''` for every namespace, or `undefined` when it is not usable.
 */
export function namespaceFilter(v: unknown, path: string, p: Problems): string | undefined {
  const s = selectorString(v, path, p);
  if (s === undefined || s === '') return s;
  // selectorString checked the shape: a mapping of matchLabels and matchExpressions.
  const m = v as Json;
  const labels = (m.matchLabels ?? {}) as Readonly<Record<string, unknown>>;
  const exprs = (m.matchExpressions ?? []) as readonly Json[];
  const [e] = exprs;
  const byLabel = exprs.length === 0 && Object.keys(labels).length === 1 ? labels[nameLabel] : undefined;
  const byIn = Object.keys(labels).length === 0 && exprs.length === 1 && e?.key === nameLabel && e.operator === 'In' && Array.isArray(e.values) && e.values.length === 1 ? (e.values as readonly unknown[])[0] : undefined;
  const ns = byLabel ?? byIn;
  if (typeof ns === 'string' && dnsLabelProblem(ns) === undefined) return ns;
  p.add(path, `not supported yet: a label selector on namespaces other than one namespace by its ${nameLabel} label (matchLabels, or In with one value); the agent does not read consumer namespaces, which would need a permission claim on them that every consumer must accept`);
  return undefined;
}
