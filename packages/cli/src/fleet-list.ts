// `rxfleet get`, the I/O: run the provider as a fleet, wait for its first discovery pass (the
// runtime's `firstPass`: one `discovered` report, whatever the provider, multiProvider included),
// then in every engaged cluster at once resolve the resource name through its discovery and list
// it; then let the provider go (which closes the clients).
import type { Cluster, ClusterName, Either, KubeError, KubeObject, Provider, ResourceDescriptor } from 'rxfleet';
import { kubeError, servedResources } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { FirstPass } from 'rxfleet/runtime';
import { firstPass } from 'rxfleet/runtime';
import type { ProviderReport } from 'rxfleet/streams';
import { createFleet } from 'rxfleet/streams';
import type { ResourceName } from './resource-name.js';
import { resolveServed } from './resource-name.js';

/**
 * One cluster's answer: its objects, or why it could not list them.
 *
 * @example
 * ```ts
 * const l: ClusterListing = { cluster: clusterName('east'), result: E.right([]), resource: configMaps };
 * ```
 */
export interface ClusterListing {
  /** The cluster's fleet name. */
  readonly cluster: ClusterName;
  /** The objects, or the error. */
  readonly result: Either<KubeError, readonly KubeObject[]>;
  /** What the name resolved to in this cluster's discovery (absent when it did not resolve). */
  readonly resource?: ResourceDescriptor;
}

/**
 * What {@link listAcrossFleet} found.
 *
 * @example
 * ```ts
 * const found: FleetListing = { listings: [], problems: ['file: skipped /etc/fleet/x.yaml: invalid kubeconfig'], timedOut: false };
 * ```
 */
export interface FleetListing {
  /** One per cluster engaged at the end of the first pass, sorted by name. */
  readonly listings: readonly ClusterListing[];
  /** What the provider reported as wrong (skipped candidates, errors, failing sources). */
  readonly problems: readonly string[];
  /** True when the first pass had not ended within the timeout (the clusters found so far were listed). */
  readonly timedOut: boolean;
}

/**
 * Options of {@link listAcrossFleet}.
 *
 * @example
 * ```ts
 * const opts: FleetListOptions = { namespace: 'default', labelSelector: 'app=web', timeoutMs: 30_000 };
 * ```
 */
export interface FleetListOptions {
  /** List in this namespace only; default every namespace. */
  readonly namespace?: string;
  /** Kubernetes label selector. */
  readonly labelSelector?: string;
  /** How long to wait for the first discovery pass (and each request). */
  readonly timeoutMs: number;
}

function problemOf(r: ProviderReport): string | undefined {
  switch (r.type) {
    case 'skipped':
      return `${r.provider}: skipped ${r.candidate}: ${r.reason}`;
    case 'waiting':
      return `${r.provider}: cluster ${r.cluster} does not answer: ${r.reason}`;
    case 'error':
      return `${r.provider}: ${r.reason}`;
    case 'source':
      return r.state === 'failing' ? `${r.provider}: ${r.reason}` : undefined;
    default:
      return undefined;
  }
}

type PassEnd = FirstPass | { readonly type: 'failed'; readonly reason: string };

// Runs the provider as a fleet until stopped; `end` resolves when its first pass ends (or it fails).
function runFleet(provider: Provider, timeoutMs: number): { readonly end: Promise<PassEnd>; readonly clusters: () => readonly Cluster[]; readonly problems: string[]; readonly stop: () => void } {
  const fleet = createFleet(provider);
  const problems: string[] = [];
  const subs = [
    fleet.reports.subscribe((r) => {
      const p = problemOf(r);
      if (p !== undefined) problems.push(p);
    }),
  ];
  const end = new Promise<PassEnd>((resolve) => {
    // Subscribed before the provider starts: reports are hot.
    subs.push(firstPass(fleet.reports, timeoutMs).subscribe(resolve));
    subs.push(
      fleet.engagements.subscribe({
        error: (err: unknown) => {
          resolve({ type: 'failed', reason: err instanceof Error ? err.message : String(err) });
        },
      }),
    );
  });
  return {
    end,
    clusters: () => [...fleet.clusters()].sort((a, b) => a.name.localeCompare(b.name)),
    problems,
    stop: () => {
      for (const s of subs.reverse()) s.unsubscribe();
    },
  };
}

async function listOne(c: Cluster, name: ResourceName, opts: FleetListOptions): Promise<ClusterListing> {
  const served = await servedResources(c.client, { timeoutMs: opts.timeoutMs });
  if (E.isLeft(served)) return { cluster: c.name, result: served };
  const resolved = resolveServed(name, served.right);
  if (E.isLeft(resolved)) return { cluster: c.name, result: E.left(kubeError('NotFound', c.name, resolved.left)) };
  const resource = resolved.right;
  const listOpts = { ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }), ...(opts.labelSelector === undefined ? {} : { labelSelector: opts.labelSelector }) };
  const got = await c.client.listAll(resource, listOpts);
  return { cluster: c.name, result: E.map((list: { readonly items: readonly KubeObject[] }) => list.items)(got), resource };
}

/**
 * Lists a resource in every cluster a provider finds in its first discovery pass, all clusters at
 * once: each resolves the name through its own discovery (a cluster may lack a CRD the others
 * serve), then lists it (paginated), each request bounded by `timeoutMs`. One cluster's failure
 * (unreachable, unknown resource with a hint, a refused list) is its listing's `Left`; the others
 * are unaffected. The provider is unsubscribed before this resolves.
 *
 * @example
 * ```ts
 * const found = await listAcrossFleet(kubeconfigFileProvider({ paths: ['/etc/fleet'] }), parseResourceName('deploy'), { timeoutMs: 30_000 });
 * ```
 * @param provider - where the clusters come from.
 * @param name - what to list, as given.
 * @param opts - namespace, selector, timeout.
 * @returns the listings and the provider's problems.
 */
export async function listAcrossFleet(provider: Provider, name: ResourceName, opts: FleetListOptions): Promise<FleetListing> {
  const fleet = runFleet(provider, opts.timeoutMs);
  try {
    const end = await fleet.end;
    if (end.type === 'failed') fleet.problems.push(`the provider failed: ${end.reason}`);
    const listings = await Promise.all(fleet.clusters().map((c) => listOne(c, name, opts)));
    return { listings, problems: [...fleet.problems], timedOut: end.type === 'timedOut' };
  } finally {
    fleet.stop();
  }
}
