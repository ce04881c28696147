// One source object, many clusters: computes the desired copy for every engaged cluster whose
// labels match, and follows both the source and the fleet as they change.
import type { OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';
import type { Cluster, FleetEvent, FleetView } from '../streams/cluster.js';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { KeyedEvent } from '../streams/events.js';
import { forgetCluster } from './internal/keys.js';
import type { LabelSelector } from '../core/selector.js';
import { matchesSelector, selectorProblem } from '../core/selector.js';
import { ConfigError } from '../core/config-error.js';


/**
 * What {@link fanOut} emits: the desired object for a target cluster, or the news that a target
 * cluster (still engaged) no longer matches, so the copy there should be removed. `source` is the
 * key of the source object, for back-reference labels and orphan sweeps.
 *
 * @example
 * ```ts
 * const item: FanOutItem<ConfigMap> = { type: 'desired', cluster: clusterName('west'), sourceKey: source, object: copy };
 * ```
 */
export type FanOutItem<D> =
  | {
      /** The cluster matches: write `object` there (apply it). */
      readonly type: 'desired';
      /** The fleet name of the target cluster. */
      readonly cluster: ClusterName;
      /** The key of the source object the copy is made from. */
      readonly sourceKey: ObjectKey;
      /** The desired copy for that cluster, as built by the config's `desired`. */
      readonly object: D;
    }
  | {
      /** The cluster, still engaged, no longer matches (or the source was deleted): remove the copy there. */
      readonly type: 'removed';
      /** The fleet name of the cluster to remove the copy from. */
      readonly cluster: ClusterName;
      /** The key of the source object whose copy goes. */
      readonly sourceKey: ObjectKey;
    };

/**
 * Options of {@link fanOut}.
 *
 * @example
 * ```ts
 * const config: FanOutOptions<ConfigMap, ConfigMap> = {
 *   fleetUpdates: provider,                            // FleetEvents, or FleetView snapshots
 *   clusterSelector: (cm) => ({ matchLabels: { tier: cm.metadata.labels?.tier ?? 'prod' } }),
 *   desired: (cm) => ({ ...cm, metadata: { name: cm.metadata.name ?? 'settings', namespace: 'fleet' } }),
 * };
 * ```
 */
export interface FanOutOptions<T extends KubeObject, D> {
  /** The fleet, as lifecycle events or as snapshots; nothing is emitted before its first value. */
  readonly fleetUpdates: Observable<FleetEvent | FleetView>;
  /** Which clusters (by their labels; none means `{}`) receive a copy of a source object. */
  readonly clusterSelector: LabelSelector | ((source: T) => LabelSelector);
  /** The desired object in a target cluster. */
  readonly desired: (source: T, cluster: Cluster) => D;
}

interface Source<T> {
  readonly key: ObjectKey;
  readonly object: T;
  readonly targets: Set<ClusterName>;
}

const isView = (f: FleetEvent | FleetView): f is FleetView => typeof (f as Partial<FleetView>).clusters === 'function';

/**
 * Turns source objects into desired (cluster, object) pairs for every engaged cluster matching a
 * label selector, and re-runs when the fleet changes.
 *
 * - Source applied: `desired` for every matching cluster; `removed` for clusters that matched
 *   before and are still engaged but no longer match.
 * - Source deleted: `removed` for every cluster it was desired in that is still engaged.
 * - Fleet changed: `desired` for clusters that newly match (engaged, or relabelled), `removed`
 *   for engaged clusters that stopped matching. A cluster that left the fleet is forgotten
 *   silently: nothing can be written there, and a credential rotation (disengage, engage) must
 *   not delete copies.
 * - `clusterRemoved` of the source's own cluster forgets its sources without removals, for the
 *   same reason; a sweep of orphans (back-reference labels) handles sources deleted meanwhile.
 *
 * Memory: one entry per live source object with its set of target clusters.
 *
 * @example
 * ```ts
 * fleetWatch(hubFleet, configMaps).pipe(
 *   fanOut({ fleetUpdates: provider, clusterSelector: { matchLabels: { env: 'prod' } }, desired: (cm) => copyOf(cm) }),
 *   mergeMap((item) =>
 *     item.type === 'desired'
 *       ? apply(ctx, { cluster: item.cluster, resource: configMaps, object: item.object })
 *       : deleteObject(ctx, { key: objectKey(item.cluster, item.sourceKey.namespace, item.sourceKey.name), resource: configMaps }),
 *   ),
 * );
 * ```
 * @param config - the fleet, the selector, and how to build the desired object.
 * @returns an operator from source events to fan-out items; completes when the source completes.
 * @throws ConfigError when a fixed `clusterSelector` has an operator Kubernetes does not know.
 */
export function fanOut<T extends KubeObject, D>(config: FanOutOptions<T, D>): OperatorFunction<KeyedEvent<T>, FanOutItem<D>> {
  const fixed = typeof config.clusterSelector === 'function' ? undefined : selectorProblem(config.clusterSelector);
  if (fixed !== undefined) throw new ConfigError(`fanOut: \`clusterSelector\`: ${fixed}`);
  const selectorOf = typeof config.clusterSelector === 'function' ? config.clusterSelector : () => config.clusterSelector as LabelSelector;
  return (source) =>
    new Observable<FanOutItem<D>>((subscriber) => {
      const sources = new Map<string, Source<T>>();
      let engaged: Map<ClusterName, Cluster> | undefined;

      // `onlyNew`: after a fleet change, re-emit only for clusters that were not targets already.
      const place = (s: Source<T>, onlyNew: boolean) => {
        if (engaged === undefined) return;
        const sel = selectorOf(s.object);
        for (const name of [...s.targets]) {
          const c = engaged.get(name);
          if (c === undefined) s.targets.delete(name);
          else if (!matchesSelector(sel, c.labels ?? {})) {
            s.targets.delete(name);
            subscriber.next({ type: 'removed', cluster: name, sourceKey: s.key });
          }
        }
        for (const c of engaged.values()) {
          if (!matchesSelector(sel, c.labels ?? {}) || (onlyNew && s.targets.has(c.name))) continue;
          s.targets.add(c.name);
          subscriber.next({ type: 'desired', cluster: c.name, sourceKey: s.key, object: config.desired(s.object, c) });
        }
      };

      // A newly engaged (or relabelled) cluster for one source: `desired` if it matches and was not a
      // target, `removed` if it was and no longer matches.
      const placeOn = (s: Source<T>, c: Cluster) => {
        const matches = matchesSelector(selectorOf(s.object), c.labels ?? {});
        if (matches && !s.targets.has(c.name)) {
          s.targets.add(c.name);
          subscriber.next({ type: 'desired', cluster: c.name, sourceKey: s.key, object: config.desired(s.object, c) });
        } else if (!matches && s.targets.delete(c.name)) {
          subscriber.next({ type: 'removed', cluster: c.name, sourceKey: s.key });
        }
      };

      const fleetSub = config.fleetUpdates.subscribe({
        next: (f) => {
          if (isView(f)) {
            engaged = new Map(f.clusters().map((c) => [c.name, c]));
            for (const s of sources.values()) place(s, true);
            return;
          }
          // One cluster changed: only that cluster is placed, O(sources) and not O(sources × clusters)
          // per engagement (a burst of thousands would otherwise be quadratic).
          engaged ??= new Map();
          if (f.type === 'engaged') {
            engaged.set(f.cluster.name, f.cluster);
            for (const s of sources.values()) placeOn(s, f.cluster);
          } else if (f.type === 'disengaged') {
            engaged.delete(f.cluster);
            for (const s of sources.values()) s.targets.delete(f.cluster);
          }
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
      });
      const sourceSub = source.subscribe({
        next: (ev) => {
          if (ev.type === 'clusterRemoved') {
            forgetCluster(sources, ev.cluster);
            return;
          }
          const id = formatKey(ev.key);
          const prev = sources.get(id);
          if (ev.type === 'deleted') {
            sources.delete(id);
            for (const name of prev?.targets ?? []) {
              if (engaged?.has(name) === true) subscriber.next({ type: 'removed', cluster: name, sourceKey: ev.key });
            }
            return;
          }
          const s: Source<T> = { key: ev.key, object: ev.object, targets: prev?.targets ?? new Set() };
          sources.set(id, s);
          place(s, false);
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          subscriber.complete();
        },
      });
      return () => {
        fleetSub.unsubscribe();
        sourceSub.unsubscribe();
        sources.clear();
      };
    });
}
