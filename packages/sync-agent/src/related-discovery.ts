// Resolving a related entry's resource on one side, in what that side serves: rxfleet's one
// discovery reader (`servedResources`: aggregated discovery, two requests, else the legacy
// documents), read once per side and preflight. The version is the one given, else the group's
// preferred one (discovery's first); a group version whose discovery failed says why.
import type { ResourceDescriptor } from 'rxfleet';
import { resource } from 'rxfleet';
import type { ClusterClient, ServedResources } from 'rxfleet/client';
import { servedResources } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { RelatedGvr } from './related-gvr.js';
import { gvrText } from './related-gvr.js';

/**
 * A related resource resolved on one side: found (its descriptor), or not served (why, in words).
 *
 * @example
 * ```ts
 * const r: Discovered = { type: 'missing', message: 'group coordination.k8s.io has no version v9' };
 * ```
 */
export type Discovered = { readonly type: 'found'; readonly resource: ResourceDescriptor; /** Whether it has a status subresource. */ readonly statusSubresource: boolean } | { readonly type: 'missing'; readonly message: string };

/**
 * Reads what a cluster serves, once (`servedResources` of rxfleet/client).
 *
 * @example
 * ```ts
 * const served = await servedOn(serviceClient);
 * ```
 * @param client - the cluster's client.
 * @returns its served resources, and the group versions whose discovery failed.
 * @throws Error naming the cluster when its discovery cannot be read.
 */
export async function servedOn(client: ClusterClient): Promise<ServedResources> {
  const got = await servedResources(client);
  if (E.isLeft(got)) throw new Error(`sync preflight: cannot read the discovery of ${client.cluster}: ${got.left.message}`);
  return got.right;
}

/**
 * Resolves a resource in what one cluster serves (the version: the one given, else the group's
 * preferred version), and whether it has a status subresource. A subresource (`secrets/status`) is
 * never a resource here.
 *
 * @example
 * ```ts
 * const got = discoverResource(await servedOn(serviceClient), { group: 'coordination.k8s.io', resource: 'leases' });
 * if (got.type === 'found') console.log(got.resource.kind); // 'Lease'
 * ```
 * @param served - what the cluster serves ({@link servedOn}).
 * @param gvr - the resource as written.
 * @returns the descriptor, or why the cluster does not serve it.
 */
export function discoverResource(served: ServedResources, gvr: RelatedGvr): Discovered {
  const inGroup = served.resources.filter((r) => r.group === gvr.group);
  const version = gvr.version ?? (gvr.group === '' ? 'v1' : inGroup[0]?.version);
  if (version === undefined) return { type: 'missing', message: `no API group ${gvr.group} is served` };
  const at = { ...gvr, version };
  const inVersion = inGroup.filter((r) => r.version === version);
  if (inVersion.length === 0) {
    const failed = served.failed.find((f) => f.startsWith(`${gvr.group === '' ? '' : `${gvr.group}/`}${version}: `));
    return { type: 'missing', message: `${gvr.group === '' ? 'the core group' : `group ${gvr.group}`} has no version ${version} (${gvrText(at)})${failed === undefined ? '' : `: ${failed}`}` };
  }
  const found = inVersion.find((r) => r.plural === gvr.resource);
  if (found === undefined || found.kind === '') return { type: 'missing', message: `${gvrText(at)} is not served` };
  return { type: 'found', resource: resource({ group: gvr.group, version, plural: gvr.resource, kind: found.kind, namespaced: found.namespaced }), statusSubresource: (found.subresources ?? []).includes('status') };
}
