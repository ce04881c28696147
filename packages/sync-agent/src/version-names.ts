// The version names a published CRD has in kcp: its own, or the ones the projection gives them
// (`projection.versions`, service version → kcp version, api-syncagent's). Only the names change:
// an object is the same JSON under either apiVersion, nothing is converted, so consumers see the
// kcp names and the service cluster keeps its own.
import type { PublishedProjection } from './types.js';

// kcp's rule for APIResourceSchema version names (checked by its OpenAPI).
const KCP_VERSION = /^v[1-9][0-9]*([a-z]+[1-9][0-9]*)?$/;

/**
 * What is wrong with a version name kcp would be given (its APIResourceSchema's rule: `v1`,
 * `v1beta2`, `v2alpha1`), or `undefined`.
 *
 * @example
 * ```ts
 * versionNameProblem('v1beta1'); // undefined
 * versionNameProblem('V1'); // 'is not a Kubernetes version name ...'
 * ```
 * @param s - the name.
 * @returns the problem, or `undefined`.
 */
export function versionNameProblem(s: string): string | undefined {
  return KCP_VERSION.test(s) ? undefined : 'is not a Kubernetes version name kcp accepts (like v1, v1beta2, v2alpha1)';
}

/**
 * The name a service version has in kcp under a projection: its rename, else its own name.
 *
 * @example
 * ```ts
 * kcpVersionName('v1', { versions: { v1: 'v1beta1' } }); // 'v1beta1'
 * kcpVersionName('v2', { versions: { v1: 'v1beta1' } }); // 'v2'
 * ```
 * @param version - the version on the service cluster.
 * @param projection - the published resource's projection.
 * @returns the version's name in kcp.
 */
export function kcpVersionName(version: string, projection: PublishedProjection | undefined): string {
  return projection?.versions?.[version] ?? version;
}

/**
 * Every problem of a projection's version renames against the versions published from a CRD, each
 * naming the field: a renamed version that is not published, a new name kcp would refuse, two
 * published versions with one name in kcp.
 *
 * @example
 * ```ts
 * renameProblems(['v1', 'v2'], { v1: 'v2' }, 'databases.db.example.dev');
 * // ['projection.versions: versions v1 and v2 of CRD databases.db.example.dev would both be v2 in kcp; ...']
 * ```
 * @param published - the versions published from the CRD (service names).
 * @param renames - `projection.versions`.
 * @param crd - the CRD's name, for the messages.
 * @returns the problems (none: every rename is sound).
 */
export function renameProblems(published: readonly string[], renames: Readonly<Record<string, string>> | undefined, crd: string): readonly string[] {
  const out: string[] = [];
  for (const [from, to] of Object.entries(renames ?? {})) {
    const field = `projection.versions.${from}`;
    if (!published.includes(from)) out.push(`${field}: version ${from} is not published from CRD ${crd} (published: ${published.join(', ')}), so there is nothing to rename`);
    const bad = typeof to === 'string' ? versionNameProblem(to) : 'is not a version name';
    if (bad !== undefined) out.push(`${field}: ${JSON.stringify(to)} ${bad}`);
  }
  const first = new Map<string, string>();
  for (const v of published) {
    const name = renames?.[v] ?? v;
    const before = first.get(name);
    if (before === undefined) first.set(name, v);
    else out.push(`projection.versions: versions ${before} and ${v} of CRD ${crd} would both be ${name} in kcp; each version in kcp needs its own name`);
  }
  return out;
}
