// `rxfleet get`, the I/O: subscribe to the provider, wait for its first discovery pass, list the
// resource in every engaged cluster at once, then let the provider go (which closes the clients).
import type { Cluster, ClusterName, Either, KubeError, KubeObject, Provider, ResourceDescriptor } from 'rxfleet';
import { E } from 'rxfleet/fp';
import type { ProviderReport } from 'rxfleet/streams';

/**
 * One cluster's answer: its objects, or why it could not list them.
 *
 * @example
 * ```ts
 * const l: ClusterListing = { cluster: clusterName('east'), result: E.right([]) };
 * ```
 */
export interface ClusterListing {
  /** The cluster's fleet name. */
  readonly cluster: ClusterName;
  /** The objects, or the error. */
  readonly result: Either<KubeError, readonly KubeObject[]>;
  /** The items' kind as the server's list says it (`WidgetList` → `Widget`), when it says. */
  readonly kind?: string;
}

/**
 * What {@link listAcrossFleet} found.
 *
 * @example
 * ```ts
 * const found: FleetListing = { listings: [], problems: ['skipped /etc/fleet/x.yaml: invalid kubeconfig'], timedOut: false };
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
 * const opts: FleetListOptions = { namespace: 'default', labelSelector: 'app=web', timeoutMs: 30_000, providers: 1 };
 * ```
 */
export interface FleetListOptions {
  /** List in this namespace only; default every namespace. */
  readonly namespace?: string;
  /** Kubernetes label selector. */
  readonly labelSelector?: string;
  /** How long to wait for the first discovery pass (and each list). */
  readonly timeoutMs: number;
  /** How many `discovered` reports end the first pass (one per merged provider). */
  readonly providers: number;
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

interface FirstPass {
  readonly clusters: Cluster[];
  readonly problems: string[];
  readonly timedOut: boolean;
}

// Resolves at the provider's `discovered` report(s), its error, or the timeout; the caller stops it.
function firstPass(provider: Provider, opts: FleetListOptions): { readonly done: Promise<FirstPass>; readonly stop: () => void } {
  const engaged = new Map<ClusterName, Cluster>();
  const problems: string[] = [];
  let discovered = 0;
  let resolveDone: (p: FirstPass) => void = () => undefined;
  const done = new Promise<FirstPass>((resolve) => {
    resolveDone = resolve;
  });
  const finish = (timedOut: boolean): void => {
    resolveDone({ clusters: [...engaged.values()].sort((a, b) => a.name.localeCompare(b.name)), problems: [...problems], timedOut });
  };
  const timer = setTimeout(() => {
    finish(true);
  }, opts.timeoutMs);
  const sub = provider.subscribe({
    next: (ev) => {
      if (ev.type === 'engaged') engaged.set(ev.cluster.name, ev.cluster);
      else if (ev.type === 'disengaged') engaged.delete(ev.name);
      else {
        const p = problemOf(ev.report);
        if (p !== undefined) problems.push(p);
        if (ev.report.type === 'discovered' && ++discovered >= opts.providers) finish(false);
      }
    },
    error: (err: unknown) => {
      problems.push(`the provider failed: ${err instanceof Error ? err.message : String(err)}`);
      finish(false);
    },
  });
  return {
    done,
    stop: () => {
      clearTimeout(timer);
      sub.unsubscribe();
    },
  };
}

/**
 * Lists a resource in every cluster a provider finds in its first discovery pass, all clusters at
 * once (each list paginated, bounded by `timeoutMs`). One cluster's failure is its listing's
 * `Left`; the others are unaffected. The provider is unsubscribed before this resolves.
 *
 * @example
 * ```ts
 * const found = await listAcrossFleet(kubeconfigFileProvider({ paths: ['/etc/fleet'] }), configMaps, { timeoutMs: 30_000, providers: 1 });
 * ```
 * @param provider - where the clusters come from.
 * @param resource - what to list.
 * @param opts - namespace, selector, timeout.
 * @returns the listings and the provider's problems.
 */
export async function listAcrossFleet(provider: Provider, resource: ResourceDescriptor, opts: FleetListOptions): Promise<FleetListing> {
  const pass = firstPass(provider, opts);
  try {
    const found = await pass.done;
    const listOpts = { ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }), ...(opts.labelSelector === undefined ? {} : { labelSelector: opts.labelSelector }) };
    const listings = await Promise.all(
      found.clusters.map(async (c): Promise<ClusterListing> => {
        const got = await c.client.listAll(resource, listOpts);
        const kind = E.isRight(got) ? got.right.kind?.replace(/List$/, '') : undefined;
        const result = E.map((list: { readonly items: readonly KubeObject[] }) => list.items)(got);
        return kind === undefined || kind === '' ? { cluster: c.name, result } : { cluster: c.name, result, kind };
      }),
    );
    return { listings, problems: found.problems, timedOut: found.timedOut };
  } finally {
    pass.stop();
  }
}
