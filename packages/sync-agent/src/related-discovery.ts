// Resolving a related entry's resource on one side, through that side's discovery documents: the
// preferred version of the group when none is given (/apis/<group>), then the group version's
// resource list (/api/v1 or /apis/<group>/<version>) for its kind and scope. Two requests at most.
// A group version is not served when its list is absent (404) or empty (kcp's answer for any group).
import type { ResourceDescriptor } from 'rxfleet';
import { resource } from 'rxfleet';
import type { ClusterClient } from 'rxfleet/client';
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
export type Discovered = { readonly type: 'found'; readonly resource: ResourceDescriptor; /** Whether it has a status subresource (`<plural>/status` is listed). */ readonly statusSubresource: boolean } | { readonly type: 'missing'; readonly message: string };

interface GroupDoc {
  readonly preferredVersion?: { readonly version?: string };
}
interface ResourceListDoc {
  readonly resources?: readonly { readonly name?: string; readonly kind?: string; readonly namespaced?: boolean }[];
}

async function getDoc<T>(client: ClusterClient, path: string): Promise<T | undefined> {
  const got = await client.raw({ method: 'GET', path });
  if (E.isRight(got)) return got.right as T;
  if (got.left.type === 'NotFound') return undefined;
  throw new Error(`sync preflight: cannot read ${path} on ${client.cluster}: ${got.left.message}`);
}

/**
 * Resolves a resource on one cluster by its discovery documents (the version: the one given, else
 * the group's preferred version), and whether it has a status subresource. A subresource
 * (`secrets/status`) is never a resource here.
 *
 * @example
 * ```ts
 * const got = await discoverResource(serviceClient, { group: 'coordination.k8s.io', resource: 'leases' });
 * if (got.type === 'found') console.log(got.resource.kind); // 'Lease'
 * ```
 * @param client - the cluster's client.
 * @param gvr - the resource as written.
 * @returns the descriptor, or why the cluster does not serve it.
 * @throws Error naming the cluster when a discovery document cannot be read (other than NotFound).
 */
export async function discoverResource(client: ClusterClient, gvr: RelatedGvr): Promise<Discovered> {
  let version = gvr.version;
  if (version === undefined) {
    if (gvr.group === '') version = 'v1';
    else {
      const doc = await getDoc<GroupDoc>(client, `/apis/${encodeURIComponent(gvr.group)}`);
      version = doc?.preferredVersion?.version;
      if (version === undefined) return { type: 'missing', message: `no API group ${gvr.group} is served` };
    }
  }
  const path = gvr.group === '' ? `/api/${encodeURIComponent(version)}` : `/apis/${encodeURIComponent(gvr.group)}/${encodeURIComponent(version)}`;
  const doc = await getDoc<ResourceListDoc>(client, path);
  const at = { ...gvr, version };
  // kcp answers a group version it does not serve with an empty list, not 404: the same answer.
  if (doc === undefined || (doc.resources ?? []).length === 0) return { type: 'missing', message: `${gvr.group === '' ? 'the core group' : `group ${gvr.group}`} has no version ${version} (${gvrText(at)})` };
  const found = (doc.resources ?? []).find((r) => r.name === gvr.resource);
  if (found?.kind === undefined) return { type: 'missing', message: `${gvrText(at)} is not served` };
  const statusSubresource = (doc.resources ?? []).some((r) => r.name === `${gvr.resource}/status`);
  return { type: 'found', resource: resource({ group: gvr.group, version, plural: gvr.resource, kind: found.kind, namespaced: found.namespaced === true }), statusSubresource };
}
