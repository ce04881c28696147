// Which resource a related entry names: its group, version and resource as written (the `kind`
// shorthand is core/v1 secrets or configmaps), on its destination side after its `projection`, and
// the descriptor preflight resolved for each side, which every reconcile, watch and cache read uses.
import type { ClusterName, ResourceDescriptor } from 'rxfleet';
import { ConfigError, configMaps, secrets } from 'rxfleet';
import { serviceCluster } from './clusters.js';
import type { PublishedPlan } from './plan.js';
import type { RelatedResource } from './types.js';

/**
 * A related entry's resource as written: `version` absent means the origin side's preferred one.
 *
 * @example
 * ```ts
 * const gvr: RelatedGvr = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
 * ```
 */
export interface RelatedGvr {
  /** The API group, `''` for core. */
  readonly group: string;
  /** The version, if given. */
  readonly version?: string;
  /** The resource (plural). */
  readonly resource: string;
}

/**
 * The resource a related entry names (the `kind` shorthand as core/v1 secrets or configmaps).
 *
 * @example
 * ```ts
 * relatedGvr({ identifier: 'conn', origin: 'service', kind: 'Secret', object: { path: 'spec.secret' } }); // { group: '', version: 'v1', resource: 'secrets' }
 * ```
 * @param r - the related entry.
 * @returns its group, version (if given) and resource.
 */
export function relatedGvr(r: RelatedResource): RelatedGvr {
  if (r.kind !== undefined) return { group: '', version: 'v1', resource: r.kind === 'Secret' ? 'secrets' : 'configmaps' };
  return { group: r.group ?? '', ...(r.version === undefined ? {} : { version: r.version }), resource: r.resource ?? '' };
}

/**
 * The resource a related entry names on its destination side: its `projection` over what
 * {@link relatedGvr} gives (a version not projected: the one the origin side resolved).
 *
 * @example
 * ```ts
 * projectedGvr({ identifier: 't', origin: 'kcp', resource: 'configmaps', projection: { group: 'tokens.example.dev', resource: 'tokens' }, object: { path: 'spec.t' } }, 'v1');
 * // { group: 'tokens.example.dev', version: 'v1', resource: 'tokens' }
 * ```
 * @param r - the related entry.
 * @param version - the origin side's version.
 * @returns the destination side's group, version and resource.
 */
export function projectedGvr(r: RelatedResource, version: string): RelatedGvr {
  const g = relatedGvr(r);
  const p = r.projection ?? {};
  return { group: p.group ?? g.group, version: p.version ?? version, resource: p.resource ?? g.resource };
}

/**
 * A GVR as people write it: `leases.v1.coordination.k8s.io`, `secrets.v1` (core).
 *
 * @example
 * ```ts
 * gvrText({ group: '', version: 'v1', resource: 'secrets' }); // 'secrets.v1'
 * ```
 * @param g - the resource.
 * @returns its text.
 */
export function gvrText(g: RelatedGvr): string {
  return [g.resource, g.version ?? '<preferred version>', ...(g.group === '' ? [] : [g.group])].join('.');
}

/**
 * The resolved resource of a related entry on one side: what preflight found by discovery
 * (`plan.related`, the origin side's; `plan.relatedProjected`, the destination side's when the
 * entry has a `projection`); a plan made without preflight knows only the core Secret and ConfigMap.
 *
 * @example
 * ```ts
 * const r = relatedResource(plan, related, 'service'); // e.g. secrets, or leases.v1.coordination.k8s.io
 * ```
 * @param plan - the published resource's plan.
 * @param r - the related entry.
 * @param side - the side (default: its origin side).
 * @returns its descriptor.
 * @throws ConfigError when the plan has no resolution for a resource other than Secrets or ConfigMaps.
 */
export function relatedResource(plan: PublishedPlan, r: RelatedResource, side: 'service' | 'kcp' = r.origin): ResourceDescriptor {
  const projected = side === r.origin ? undefined : plan.relatedProjected?.[r.identifier];
  if (projected !== undefined) return projected;
  const resolved = plan.related?.[r.identifier];
  if (resolved !== undefined) return resolved;
  const g = relatedGvr(r);
  if (r.projection === undefined && g.group === '' && (g.version ?? 'v1') === 'v1' && (g.resource === 'secrets' || g.resource === 'configmaps')) return g.resource === 'secrets' ? secrets : configMaps;
  throw new ConfigError(`published "${plan.published.name}": related "${r.identifier}" (${gvrText(g)}) was not resolved by preflight`);
}

/**
 * The resolved resource of a related entry on the side `cluster` is on (the service cluster, or a
 * consumer workspace).
 *
 * @example
 * ```ts
 * const r = relatedOn(plan, related, req.cluster); // the workspace side's
 * ```
 * @param plan - the published resource's plan.
 * @param r - the related entry.
 * @param cluster - a cluster of the fleet.
 * @returns its descriptor there.
 */
export function relatedOn(plan: PublishedPlan, r: RelatedResource, cluster: ClusterName): ResourceDescriptor {
  return relatedResource(plan, r, cluster === serviceCluster ? 'service' : 'kcp');
}
