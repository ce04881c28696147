// One key's state in `reconcile`'s work queue, and the context its reconciler is handed. A key
// moves idle → (debouncing | waiting) → ready → running → idle; the queue forgets it when idle.
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import type { FleetView } from '../../streams/cluster.js';
import type { ObjectKey } from '../../core/key.js';
import { formatKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { ReconcileContext } from '../types.js';
import type { Debounced } from './debounce-window.js';
import type { Lane } from './fair-queue.js';

/**
 * Where a key is in the queue.
 *
 * @example
 * ```ts
 * const p: Phase = 'debouncing';
 * ```
 */
export type Phase = 'idle' | 'debouncing' | 'waiting' | 'ready' | 'running';

/**
 * A key's entry. Its deadline (debounce window, backoff or requeue) sits in the queue's one
 * `Timers`; `due` and `firstAt` are its debounce window, when it has one open.
 *
 * @example
 * ```ts
 * const e = newEntry<ConfigMap>(formatKey(key), key, configMaps);
 * ```
 */
export interface Entry<T extends KubeObject> extends Debounced {
  readonly id: string;
  readonly key: ObjectKey;
  resource: ResourceDescriptor<T>;
  object: T | undefined;
  phase: Phase;
  failures: number;
  /** Changed while running: runs once more when the run ends. */
  dirty: boolean;
  dirtySince: number;
  /** Incremented per start, so a late completion of an aborted run is ignored. */
  run: number;
  /** When it last became ready (queued for a worker), for the ready → start latency. */
  readyAt: number;
  startedAt: number;
  /** Its cluster's lane while it runs, to give the lane's slot back when the run ends. */
  lane: Lane<Entry<T>> | undefined;
  attempt: number;
  inner: Subscription | undefined;
  ctx: Context | undefined;
}

/**
 * A new idle entry.
 *
 * @example
 * ```ts
 * entries.set(id, newEntry(id, ev.key, ev.resource));
 * ```
 * @param id - the key's string id (`formatKey`).
 * @param key - the key.
 * @param resource - its resource.
 * @returns the entry.
 */
export function newEntry<T extends KubeObject>(id: string, key: ObjectKey, resource: ResourceDescriptor<T>): Entry<T> {
  // Every field set up front, in one order, so all entries share one hidden class (bench/reconcile).
  return {
    id, key, resource, object: undefined, phase: 'idle', at: 0, heapIndex: -1, due: 0, firstAt: 0,
    failures: 0, dirty: false, dirtySince: 0, run: 0, readyAt: 0, startedAt: 0, lane: undefined, attempt: 0, inner: undefined, ctx: undefined,
  };
}

/**
 * The {@link ReconcileContext} of one run. Lazy: most reconcilers never read the signal or the
 * logger, and both cost per reconcile.
 *
 * @example
 * ```ts
 * const ctx = new Context(fleet, logger, key, 1);
 * ctx.abort('cluster left the fleet');
 * ```
 */
export class Context implements ReconcileContext {
  private controller: AbortController | undefined;
  private child: Logger | undefined;
  readonly fleet: FleetView | undefined;
  readonly attempt: number;
  private readonly base: Logger;
  private readonly key: ObjectKey;
  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /**
   * @example `new Context(undefined, logger, key, 1)`
   * @param fleet - handed to the reconciler.
   * @param base - parent of the run's logger.
   * @param key - the key being reconciled.
   * @param attempt - 1, or more after failures.
   */
  constructor(fleet: FleetView | undefined, base: Logger, key: ObjectKey, attempt: number) {
    this.fleet = fleet;
    this.base = base;
    this.key = key;
    this.attempt = attempt;
  }
  /** Aborted when the run is stopped. @example `fetch(url, { signal: ctx.signal })` @returns the signal. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }
  /** A logger carrying the cluster and the key. @example `ctx.logger.info('syncing')` @returns it. */
  get logger(): Logger {
    this.child ??= this.base.child({ cluster: this.key.cluster, key: formatKey(this.key) });
    return this.child;
  }
  /** Aborts the signal, if anyone asked for it. @example `ctx.abort('unsubscribed')` @param reason - why. */
  abort(reason: string): void {
    this.controller?.abort(new Error(reason));
  }
}
