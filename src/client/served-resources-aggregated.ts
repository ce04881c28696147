// Aggregated discovery (apidiscovery.k8s.io/v2, GA in Kubernetes 1.30): asked with its Accept
// header, `/api` and `/apis` each answer every group, version and resource in one document, so a
// cluster's discovery costs two requests instead of one per group version. kubectl asks for it
// first; a server that does not serve it answers the legacy documents, which served-resources.ts reads.
import type { ServedResource, ServedResources } from './served-resources.js';

/** The Accept header that asks for aggregated discovery, and for plain JSON where it is not served. */
export const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface DiscoveryResource {
  readonly resource?: string;
  readonly responseKind?: { readonly kind?: string };
  readonly scope?: string;
  readonly singularResource?: string;
  readonly shortNames?: readonly string[];
  readonly verbs?: readonly string[];
  readonly subresources?: readonly { readonly subresource?: string }[];
}
interface DiscoveryVersion {
  readonly version?: string;
  readonly resources?: readonly DiscoveryResource[];
  readonly freshness?: string;
}
/** The document `/api` or `/apis` answers to {@link aggregatedAccept} (or the legacy one, another kind). */
export interface GroupDiscoveryList {
  readonly kind?: string;
  readonly items?: readonly { readonly metadata?: { readonly name?: string }; readonly versions?: readonly DiscoveryVersion[] }[];
}

/** Whether a document is an aggregated one (a server without it answers APIVersions / APIGroupList). */
export function isAggregated(doc: GroupDiscoveryList | undefined): boolean {
  return doc?.kind === 'APIGroupDiscoveryList';
}

function resourcesOf(group: string, v: DiscoveryVersion): ServedResource[] {
  return (v.resources ?? [])
    .filter((r) => typeof r.resource === 'string' && (r.verbs ?? []).includes('list'))
    .map((r) => {
      const subresources = (r.subresources ?? []).flatMap((s) => (s.subresource === undefined ? [] : [s.subresource]));
      return {
        group,
        version: v.version ?? '',
        plural: r.resource ?? '',
        singular: r.singularResource ?? '',
        kind: r.responseKind?.kind ?? '',
        namespaced: r.scope === 'Namespaced',
        shortNames: r.shortNames ?? [],
        ...(subresources.length === 0 ? {} : { subresources }),
      };
    });
}

/**
 * The served resources of aggregated `/api` and `/apis` documents, in the order the legacy reading
 * gives: the core group, then the groups in the server's order, each group's versions in the order
 * served (the preferred one first). A version whose discovery is `Stale` (an aggregated API that did
 * not answer) is listed in `failed` and left out, as the legacy reading leaves out one that fails.
 *
 * @example
 * ```ts
 * const core: GroupDiscoveryList = { kind: 'APIGroupDiscoveryList', items: [{ metadata: { name: '' }, versions: [{ version: 'v1', resources: [{ resource: 'configmaps', responseKind: { kind: 'ConfigMap' }, scope: 'Namespaced', singularResource: 'configmap', shortNames: ['cm'], verbs: ['get', 'list'] }] }] }] };
 * fromAggregated(core, { kind: 'APIGroupDiscoveryList', items: [] }); // { resources: [{ group: '', version: 'v1', plural: 'configmaps', … }], failed: [] }
 * ```
 * @param core - what `/api` answered (`undefined` where it serves nothing, as a kcp virtual workspace).
 * @param groups - what `/apis` answered.
 * @returns the resources and the failed group versions.
 */
export function fromAggregated(core: GroupDiscoveryList | undefined, groups: GroupDiscoveryList | undefined): ServedResources {
  const resources: ServedResource[] = [];
  const failed: string[] = [];
  for (const item of [...(core?.items ?? []), ...(groups?.items ?? [])]) {
    const group = item.metadata?.name ?? '';
    for (const v of item.versions ?? []) {
      if (v.freshness === 'Stale') failed.push(`${group === '' ? '' : `${group}/`}${v.version ?? ''}: its discovery is stale (the aggregated API did not answer)`);
      else resources.push(...resourcesOf(group, v));
    }
  }
  return { resources, failed };
}
