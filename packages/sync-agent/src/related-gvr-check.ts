// The resource fields of a related entry, checked the same way in both forms (the agent's own and a
// PublishedResource's): `group`, `version` and `resource`, or the `kind` shorthand, never both; an
// `identityHash` (the kcp APIExport that provides the resource) only with all three.
// Whether a server serves the resource is preflight's question (related-preflight.ts).
import type { Json, Problems } from './config-check.js';
import { at, dns1035Problem, mapping, text } from './config-check.js';
import { dnsSubdomainProblem } from './naming.js';

/**
 * The resource fields of a related entry that checked out (only those written), or `undefined`
 * when one is wrong (each problem in `p`, at its path).
 *
 * @example
 * ```ts
 * checkRelatedGvr({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, 'published[0].related[0]', problems);
 * // { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }
 * ```
 * @param m - the related entry as read.
 * @param path - its path.
 * @param p - where problems go.
 * @returns the fields to keep.
 */
export function checkRelatedGvr(m: Json, path: string, p: Problems): Readonly<Record<string, string>> | undefined {
  const before = p.list.length;
  const kind = text(m, 'kind', path, p, (s) => (s === 'Secret' || s === 'ConfigMap' ? undefined : 'is not supported: expected "Secret" or "ConfigMap" (for any other resource, give group, version and resource)'));
  const group = text(m, 'group', path, p, (s) => (s === '' ? undefined : dnsSubdomainProblem(s)));
  const version = text(m, 'version', path, p, (s) => (s === '' ? undefined : dns1035Problem(s)));
  const resource = text(m, 'resource', path, p, dns1035Problem);
  if (kind !== undefined && resource !== undefined) p.add(path, 'give kind (deprecated) or resource, not both');
  else if (kind !== undefined && ((group ?? '') !== '' || (version ?? 'v1') !== 'v1')) p.add(path, `kind ${kind} is core/v1: give group "" and version v1 with it, or resource instead`);
  else if (m.kind === undefined && m.resource === undefined) p.add(path, 'required: resource (with group and version; e.g. resource: secrets, or group: coordination.k8s.io, version: v1, resource: leases)');
  if (p.list.length !== before) return undefined;
  if (kind !== undefined) return { kind };
  return { ...(group === undefined || group === '' ? {} : { group }), ...(version === undefined || version === '' ? {} : { version }), resource: resource ?? '' };
}

const hashPattern = /^[a-z0-9]+$/;

/**
 * Checks a related entry's `identityHash` (if any) against the resource fields `checkRelatedGvr`
 * kept: a resource another kcp APIExport provides has a group, and is named by group, version and
 * resource (api-syncagent's rule: "identity hashes can only be used with GVRs").
 *
 * @example
 * ```ts
 * checkIdentityHash({ identityHash: 'abc', resource: 'widgets' }, 'published[0].related[0]', problems, { resource: 'widgets' });
 * // problems: 'published[0].related[0].identityHash: only with group, version and resource ...'
 * ```
 * @param m - the related entry as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param gvr - the resource fields that checked out, if they did.
 * @returns the identity hash, when given and usable.
 */
export function checkIdentityHash(m: Json, path: string, p: Problems, gvr: Readonly<Record<string, string>> | undefined): string | undefined {
  const hash = text(m, 'identityHash', path, p, (s) => (hashPattern.test(s) ? undefined : 'is not an identity hash (lowercase letters and digits: an APIExport\'s status.identityHash)'));
  if (hash === undefined || gvr === undefined) return undefined;
  if (gvr.group === undefined || gvr.version === undefined || gvr.resource === undefined) {
    p.add(at(path, 'identityHash'), 'only with group, version and resource (a resource another kcp APIExport provides is never in the core group)');
    return undefined;
  }
  return hash;
}

/**
 * A related entry's `projection` (the destination side's `group`, `version`, `resource`), the
 * fields given, or `undefined` when absent or wrong (each problem in `p`, at its path).
 *
 * @example
 * ```ts
 * checkRelatedProjection({ projection: { group: 'tokens.example.dev', resource: 'tokens' } }, 'published[0].related[0]', problems);
 * // { group: 'tokens.example.dev', resource: 'tokens' }
 * ```
 * @param m - the related entry as read.
 * @param path - its path.
 * @param p - where problems go.
 * @returns the projection.
 */
export function checkRelatedProjection(m: Json, path: string, p: Problems): Readonly<Record<string, string>> | undefined {
  if (m.projection === undefined) return undefined;
  const where = at(path, 'projection');
  const pm = mapping(m.projection, where, ['group', 'version', 'resource'], p);
  if (pm === undefined) return undefined;
  const before = p.list.length;
  const out: Record<string, string> = {};
  const group = text(pm, 'group', where, p, (s) => (s === '' ? undefined : dnsSubdomainProblem(s)));
  const version = text(pm, 'version', where, p, (s) => (s === '' ? undefined : dns1035Problem(s)));
  const resource = text(pm, 'resource', where, p, (s) => (s === '' ? undefined : dns1035Problem(s)));
  // api-syncagent: an empty field is "not projected".
  for (const [k, v] of [['group', group], ['version', version], ['resource', resource]] as const) if (v !== undefined && v !== '') out[k] = v;
  return p.list.length === before && Object.keys(out).length > 0 ? out : undefined;
}
