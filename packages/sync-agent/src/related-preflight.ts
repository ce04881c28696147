// The related entries' resources, resolved at start on the side each object lives on: the origin
// side first (its preferred version when none is given), then the destination side at that version
// (or where the entry's `projection` puts it), since the copy is written there. On the service cluster by its discovery; in kcp by the provider
// workspace's discovery (what every workspace serves: core and built-in resources), except for a
// resource another APIExport provides (an identity hash), which the provider workspace need not
// serve: there the service side's is used. Every problem names the published resource, the
// related identifier and the cluster.
import type { ResourceDescriptor } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import type { ClusterClient } from 'rxfleet/client';
import type { PublishedPlan } from './plan.js';
import type { ServedResources } from 'rxfleet/client';
import type { Discovered } from './related-discovery.js';
import { discoverResource, servedOn } from './related-discovery.js';
import type { RelatedGvr } from './related-gvr.js';
import { gvrText, projectedGvr, relatedGvr } from './related-gvr.js';

/**
 * The plans with `related` filled in, and the problems found (each a full sentence).
 *
 * @example
 * ```ts
 * const resolved: ResolvedRelated = await resolveRelated(plans, clients, (p: PublishedPlan) => `published "${p.published.name}"`);
 * ```
 */
export interface ResolvedRelated {
  /** The plans, each with its related resources resolved. */
  readonly plans: readonly PublishedPlan[];
  /** What could not be resolved. */
  readonly problems: readonly string[];
}

/**
 * Resolves every related entry of every plan on both sides (see the file's header). A resource one
 * side does not serve, serves with another kind or scope, serves cluster-scoped (related objects
 * live in the primary object's namespace), or that a published resource syncs on its own (it would
 * be synced twice) is a problem; so is `syncStatus` for a resource either side serves without a
 * status subresource.
 *
 * @example
 * ```ts
 * const resolved = await resolveRelated(plans, { service: serviceClient, kcp: providerClient }, (p: PublishedPlan) => p.published.name);
 * ```
 * @param plans - the plans preflight decided.
 * @param clients - the service cluster's and the provider workspace's clients.
 * @param where - how a problem names a plan's published resource.
 * @returns the plans with `related`, and the problems.
 * @throws Error naming the cluster when a discovery document cannot be read.
 */
export async function resolveRelated(plans: readonly PublishedPlan[], clients: { readonly service: ClusterClient; readonly kcp: ClusterClient }, where: (p: PublishedPlan) => string): Promise<ResolvedRelated> {
  const synced = new Map<string, string>();
  for (const p of plans) {
    synced.set(`service ${resourceId(p.service)}`, p.published.name);
    synced.set(`kcp ${resourceId(p.kcp)}`, p.published.name);
  }
  // Each side's discovery is read once, when a related entry first needs it.
  const served = new Map<'service' | 'kcp', Promise<ServedResources>>();
  const discover = async (side: 'service' | 'kcp', gvr: RelatedGvr): Promise<Discovered> => {
    let got = served.get(side);
    if (got === undefined) {
      got = servedOn(side === 'service' ? clients.service : clients.kcp);
      served.set(side, got);
    }
    return discoverResource(await got, gvr);
  };
  const named = (side: 'service' | 'kcp'): string => (side === 'service' ? `on the service cluster ${clients.service.cluster}` : `in kcp workspace ${clients.kcp.cluster}`);
  const problems: string[] = [];
  const out: PublishedPlan[] = [];
  for (const plan of plans) {
    const related: Record<string, ResourceDescriptor> = {};
    const relatedProjected: Record<string, ResourceDescriptor> = {};
    for (const [j, r] of (plan.published.related ?? []).entries()) {
      const at = `${where(plan)}: related[${j}] "${r.identifier}"`;
      const gvr = relatedGvr(r);
      // Another APIExport's resource (an identity hash; its version is given), the same on both
      // sides: the service side first. With a projection, the provider workspace must serve it.
      const foreign = r.identityHash !== undefined && r.projection === undefined;
      const [origin, dest] = r.origin === 'service' || foreign ? (['service', 'kcp'] as const) : (['kcp', 'service'] as const);
      const o = await discover(origin, gvr);
      if (o.type === 'missing') {
        problems.push(`${at}: ${o.message} ${named(origin)} (${origin === 'service' && r.origin === 'kcp' ? 'where its copies go' : 'its origin side'})`);
        continue;
      }
      // The destination side's resource: the entry's projection, if any (origin side first: its version).
      const projected = r.projection === undefined ? undefined : projectedGvr(r, o.resource.version);
      const d = await discover(dest, projected ?? { ...gvr, version: o.resource.version });
      if (d.type === 'missing' && !foreign) {
        problems.push(`${at}: ${d.message} ${named(dest)}, where its copies go`);
        continue;
      }
      // The provider workspace serves another export's resource only if it binds that export too;
      // otherwise the consumer's binding of that export serves it, as on the service cluster.
      const onDest = d.type === 'found' ? d.resource : o.resource;
      const problem = mismatch(o.resource, onDest, projected !== undefined) ?? (o.resource.namespaced ? undefined : `${gvrText(gvr)} is cluster-scoped ${named(origin)}; related objects live in the primary object's namespace`);
      // syncStatus needs a status subresource on both sides (a foreign resource's kcp side is the service side's).
      const destStatus = d.type === 'found' ? d.statusSubresource : o.statusSubresource;
      const noStatus = r.syncStatus !== true ? undefined : !o.statusSubresource ? origin : !destStatus ? dest : undefined;
      if (noStatus !== undefined) problems.push(`${at}: syncStatus: ${gvrText({ ...gvr, version: o.resource.version })} has no status subresource ${named(noStatus)}, so there is no status to copy; leave syncStatus out`);
      const twice = synced.get(`${origin} ${resourceId(o.resource)}`) ?? synced.get(`${dest} ${resourceId(onDest)}`);
      if (problem !== undefined) problems.push(`${at}: ${problem}`);
      else if (twice !== undefined) problems.push(`${at}: ${gvrText(gvr)} is published by "${twice}", which syncs its objects on their own; a related object would be synced twice`);
      else {
        related[r.identifier] = o.resource;
        if (projected !== undefined) relatedProjected[r.identifier] = onDest;
      }
    }
    const withProjected = Object.keys(relatedProjected).length === 0 ? {} : { relatedProjected };
    out.push(Object.keys(related).length === 0 ? plan : Object.freeze({ ...plan, related, ...withProjected }));
  }
  return { plans: out, problems };
}

function mismatch(a: ResourceDescriptor, b: ResourceDescriptor, projected: boolean): string | undefined {
  if (a.kind !== b.kind && !projected) return `${b.plural} has kind ${a.kind} on its origin side and ${b.kind} where its copies go`;
  if (a.namespaced !== b.namespaced) return `${b.plural} is namespaced on one side and cluster-scoped on the other`;
  return undefined;
}
