// What a cluster serves, from its discovery documents, as kubectl reads them: aggregated discovery
// where the server serves it (two requests), else /api/v1, /apis, then every version of every group.
// The one discovery reader: `rxfleet get` (packages/cli) resolves a resource name against it per
// cluster, the sync agent (packages/sync-agent) a related entry's resource on each side.
import type { KubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { ClusterClient } from './client.js';
import type { GroupDiscoveryList } from './served-resources-aggregated.js';
import { aggregatedAccept, fromAggregated, isAggregated } from './served-resources-aggregated.js';

/**
 * One resource a cluster serves, as its discovery document lists it.
 *
 * @example
 * ```ts
 * const r: ServedResource = { group: 'apps', version: 'v1', plural: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true, shortNames: ['deploy'] };
 * ```
 */
export interface ServedResource {
  /** The API group, `''` for the core group. */
  readonly group: string;
  /** The version it is served in. */
  readonly version: string;
  /** Its name in URLs. */
  readonly plural: string;
  /** Its singular name (`''` when the server gives none). */
  readonly singular: string;
  /** The kind of its objects. */
  readonly kind: string;
  /** Whether its objects live in namespaces. */
  readonly namespaced: boolean;
  /** Its short names (`cm`, `deploy`). */
  readonly shortNames: readonly string[];
  /** Its subresources (`status`, `scale`), when it has any. */
  readonly subresources?: readonly string[];
}

/**
 * A cluster's listable resources: the core group first, then the groups in the server's order
 * (its priority), each group's preferred version first; and the group versions whose discovery
 * failed (an aggregated API that is down), which are left out.
 *
 * @example
 * ```ts
 * const served: ServedResources = { resources: [], failed: ['metrics.k8s.io/v1beta1: cluster "east" GET /apis/metrics.k8s.io/v1beta1 → 503: service unavailable'] };
 * ```
 */
export interface ServedResources {
  /** The resources, in resolution order. */
  readonly resources: readonly ServedResource[];
  /** `<group/version>: <why>` for each group version whose discovery failed. */
  readonly failed: readonly string[];
}

interface ResourceListDoc {
  readonly resources?: readonly { name?: string; singularName?: string; kind?: string; namespaced?: boolean; verbs?: readonly string[]; shortNames?: readonly string[] }[];
}
interface GroupListDoc {
  readonly groups?: readonly { name?: string; versions?: readonly { version?: string }[]; preferredVersion?: { version?: string } }[];
}

/** Group versions asked at once per cluster: the h2 connection carries them together, bounded. */
const concurrency = 8;

async function getDoc<T>(client: ClusterClient, path: string, timeoutMs: number | undefined, accept?: string): Promise<Either<KubeError, T | undefined>> {
  const got = await client.raw({ method: 'GET', path, ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(accept === undefined ? {} : { accept }) });
  // A server that serves no such document (a kcp virtual workspace has no /api) serves nothing there.
  if (E.isLeft(got)) return got.left.type === 'NotFound' ? E.right(undefined) : got;
  return E.right(got.right as T);
}

function resourcesOf(group: string, version: string, doc: ResourceListDoc | undefined): ServedResource[] {
  const all = doc?.resources ?? [];
  // A subresource is listed as `<plural>/<subresource>`, beside its resource.
  const subresourcesOf = (plural: string): readonly string[] => all.flatMap((r) => (r.name?.startsWith(`${plural}/`) === true ? [r.name.slice(plural.length + 1)] : []));
  return all
    .filter((r) => typeof r.name === 'string' && !r.name.includes('/') && (r.verbs ?? []).includes('list'))
    .map((r) => {
      const subresources = subresourcesOf(r.name ?? '');
      return {
        group,
        version,
        plural: r.name ?? '',
        singular: r.singularName ?? '',
        kind: r.kind ?? '',
        namespaced: r.namespaced === true,
        shortNames: r.shortNames ?? [],
        ...(subresources.length === 0 ? {} : { subresources }),
      };
    });
}

/**
 * What {@link servedResources} takes.
 *
 * @example
 * ```ts
 * const options: ServedResourcesOptions = { timeoutMs: 30_000 };
 * ```
 */
export interface ServedResourcesOptions {
  /** The bound of each request. Default: the client's. */
  readonly timeoutMs?: number;
}

/**
 * Reads a cluster's discovery, each request bounded by `timeoutMs`: `/api` and `/apis` as aggregated
 * discovery (two requests in all); from a server that does not serve it,
 * `/api/v1` and every version of every group (8 at a time) besides. A group version that fails is
 * listed in `failed` and left out, as kubectl does; a failure of a root document fails the whole.
 *
 * @example
 * ```ts
 * const served = await servedResources(client, { timeoutMs: 30_000 });
 * // Right({ resources: [{ group: '', version: 'v1', plural: 'configmaps', … }, …], failed: [] })
 * ```
 * @param client - the cluster's client.
 * @param options - the bound of each request.
 * @returns the served resources, or the error of the root documents (it names the cluster).
 */
export async function servedResources(client: ClusterClient, options: ServedResourcesOptions = {}): Promise<Either<KubeError, ServedResources>> {
  const timeoutMs = options.timeoutMs;
  const [root, apis] = await Promise.all([getDoc<GroupDiscoveryList>(client, '/api', timeoutMs, aggregatedAccept), getDoc<GroupDiscoveryList>(client, '/apis', timeoutMs, aggregatedAccept)]);
  if (E.isLeft(root)) return root;
  if (E.isLeft(apis)) return apis;
  if (isAggregated(apis.right) && (root.right === undefined || isAggregated(root.right))) return E.right(fromAggregated(root.right, apis.right));
  // The legacy documents: /apis answered its APIGroupList, /api its APIVersions (the core group's
  // resources are in /api/v1; a server with no /api has none).
  const [core, groups] = await Promise.all([
    root.right === undefined ? E.right(undefined) : getDoc<ResourceListDoc>(client, '/api/v1', timeoutMs),
    isAggregated(apis.right) ? getDoc<GroupListDoc>(client, '/apis', timeoutMs) : E.right(apis.right as GroupListDoc | undefined),
  ]);
  if (E.isLeft(core)) return core;
  if (E.isLeft(groups)) return groups;
  const versions = (groups.right?.groups ?? []).flatMap((g) => {
    const preferred = g.preferredVersion?.version;
    const all = (g.versions ?? []).flatMap((v) => (v.version === undefined ? [] : [v.version]));
    const ordered = preferred !== undefined && all.includes(preferred) ? [preferred, ...all.filter((v) => v !== preferred)] : all;
    return ordered.map((version) => ({ group: g.name ?? '', version }));
  });
  const docs: (ServedResource[] | string)[] = [];
  for (let i = 0; i < versions.length; i += concurrency) {
    const batch = await Promise.all(
      versions.slice(i, i + concurrency).map(async ({ group, version }) => {
        const doc = await getDoc<ResourceListDoc>(client, `/apis/${group}/${version}`, timeoutMs);
        return E.isLeft(doc) ? `${group}/${version}: ${doc.left.message}` : resourcesOf(group, version, doc.right);
      }),
    );
    docs.push(...batch);
  }
  return E.right({
    resources: [...resourcesOf('', 'v1', core.right), ...docs.flatMap((d) => (typeof d === 'string' ? [] : d))],
    failed: docs.flatMap((d) => (typeof d === 'string' ? [d] : [])),
  });
}
