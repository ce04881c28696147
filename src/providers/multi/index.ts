/**
 * Many providers as one: each provider's clusters are named `<provider>#<cluster>`, and providers
 * can be added and removed while the fleet runs (removing one disengages its clusters). The
 * multicluster-runtime `multi` provider, as an Observable. The providers' reports pass through,
 * their cluster names prefixed like the clusters.
 *
 * @packageDocumentation
 * @module rxfleet/providers/multi
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import type { Observable, Subscription } from 'rxjs';
import { asyncScheduler, BehaviorSubject, Observable as RxObservable } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import type { FleetEvent, Provider } from '../../streams/cluster.js';
import { disengaged } from '../../streams/cluster.js';
import type { ProviderOptions } from '../../streams/provider-options.js';
import type { Reporter } from '../internal/report.js';
import { reporting } from '../internal/report.js';
import { withPrefix } from './with-prefix.js';

export { withPrefix } from './with-prefix.js';

/**
 * Options of {@link multiProvider}.
 *
 * @example
 * ```ts
 * const opts: MultiProviderOptions = { separator: '/' };
 * ```
 */
export interface MultiProviderOptions extends ProviderOptions {
  /** Between the provider's name and the cluster's; default `#`. */
  readonly separator?: string;
}

// A type, not an interface extending Observable: the docs then show the three methods only.
/**
 * Providers merged under names, changeable at run time.
 *
 * @example
 * ```ts
 * const all = multiProvider({ capi: clusterApiProvider({ management: hub }) });
 * createFleet(all);
 * all.add('kind', kindProvider());   // its clusters appear as kind#<name>
 * all.remove('capi');        // capi#… clusters are disengaged
 * ```
 */
export type MultiProvider = Provider & {
  /** Adds a provider (replacing, and so disengaging the clusters of, one of the same name). */
  add(name: string, provider: Provider): void;
  /** Removes a provider: each subscriber unsubscribes from it and sees its clusters disengaged. */
  remove(name: string): void;
  /** The providers' names now. */
  names(): readonly string[];
};

interface Running {
  readonly provider: Provider;
  readonly engaged: Set<ClusterName>;
  sub?: Subscription;
}

/** Runs the registry's providers for one subscription, renaming their events and saying multi's own reports. */
function runProviders(registry: BehaviorSubject<ReadonlyMap<string, Provider>>, separator: string, say: Reporter): Observable<FleetEvent> {
  return new RxObservable<FleetEvent>((subscriber) => {
    const running = new Map<string, Running>();
    // multi's first pass is that of every provider it starts with: their own `discovered` reports
    // are held back until then (the runtime reads the first one as the fleet's), then passed on.
    let firstPass: { readonly pending: Set<string>; candidates: number } | undefined;
    const passed = (name: string, candidates = 0): void => {
      if (!firstPass?.pending.delete(name)) return;
      firstPass.candidates += candidates;
      if (firstPass.pending.size > 0) return;
      const { candidates: total } = firstPass;
      firstPass = undefined;
      let clusters = 0;
      for (const r of running.values()) clusters += r.engaged.size;
      say({ type: 'discovered', clusters, candidates: total });
    };
    const stop = (name: string, reason: string): void => {
      const r = running.get(name);
      if (r === undefined) return;
      running.delete(name);
      r.sub?.unsubscribe();
      for (const cluster of r.engaged) {
        subscriber.next(disengaged(cluster, reason));
        say({ type: 'disengaged', cluster, reason });
      }
      // A provider stopped during the first pass ends its part of it after its clusters left, so
      // the pass counts only what stays engaged (as the engine settles a removed candidate).
      passed(name);
    };
    const start = (name: string, p: Provider): void => {
      const r: Running = { provider: p, engaged: new Set() };
      running.set(name, r);
      r.sub = withPrefix(`${name}${separator}`, p).subscribe({
        next: (ev) => {
          if (ev.type === 'engaged') r.engaged.add(ev.cluster.name);
          else if (ev.type === 'disengaged') r.engaged.delete(ev.cluster);
          else if (ev.report.type === 'discovered' && firstPass?.pending.has(name) === true) {
            passed(name, ev.report.candidates);
            return;
          }
          subscriber.next(ev);
        },
        error: (err: unknown) => {
          say({ type: 'error', reason: `provider "${name}" failed: ${err instanceof Error ? err.message : String(err)}` });
          stop(name, `provider "${name}" failed`);
        },
      });
    };
    let first = true;
    const starting = '\u0000starting'; // no provider's name: names are user strings, never with NUL
    const sub = registry.subscribe((next) => {
      for (const [name, r] of [...running]) {
        if (next.get(name) !== r.provider) stop(name, `provider "${name}" ${next.has(name) ? 'replaced' : 'removed'}`);
      }
      if (first) {
        first = false;
        firstPass = { pending: new Set([...next.keys(), starting]), candidates: 0 };
      }
      for (const [name, p] of next) if (!running.has(name)) start(name, p);
      passed(starting); // the start itself counts as pending: a provider that passes while starting does not end the pass early
    });
    return () => {
      sub.unsubscribe();
      for (const r of running.values()) r.sub?.unsubscribe();
      running.clear();
    };
  });
}

/**
 * Merges named providers; a cluster `c` of provider `p` is engaged as `p#c`, keeping its identity
 * and labels. Cold: each subscription subscribes to every provider present and follows `add` /
 * `remove`. The providers' reports pass through (cluster names prefixed). A provider that errors
 * (which a provider should never do) is reported as an `error` of provider `multi` and its clusters
 * disengaged; the others go on. Unsubscribing unsubscribes every provider and emits nothing more.
 *
 * @example
 * ```ts
 * import { multiProvider } from 'rxfleet/providers/multi';
 * const all = multiProvider({ east: singleClusterProvider(eastEntry) });
 * all.add('west', singleClusterProvider(westEntry)); // engaged as west#west
 * ```
 * @param initial - providers by name.
 * @param options - separator and scheduler (the clock of multi's own reports).
 * @returns the combined provider, with `add`, `remove` and `names`.
 */
export function multiProvider(initial: Readonly<Record<string, Provider>> = {}, options: MultiProviderOptions = {}): MultiProvider {
  const separator = options.separator ?? '#';
  const registry = new BehaviorSubject<ReadonlyMap<string, Provider>>(new Map(Object.entries(initial)));
  const provider = reporting({ provider: 'multi', scheduler: options.scheduler ?? asyncScheduler }, (say) => runProviders(registry, separator, say));

  return Object.assign(provider, {
    add(name: string, p: Provider): void {
      registry.next(new Map(registry.value).set(name, p));
    },
    remove(name: string): void {
      const next = new Map(registry.value);
      if (next.delete(name)) registry.next(next);
    },
    names: (): readonly string[] => [...registry.value.keys()],
  });
}
