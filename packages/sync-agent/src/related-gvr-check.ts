// The resource fields of a related entry, checked the same way in both forms (the agent's own and a
// PublishedResource's): `group`, `version` and `resource`, or the `kind` shorthand, never both.
// Whether a server serves the resource is preflight's question (related-preflight.ts).
import type { Json, Problems } from './config-check.js';
import { dns1035Problem, text } from './config-check.js';
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
