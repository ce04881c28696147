// The work queue behind `reconcile`, as one subscription's worth of state. Pure helpers (fair
// queue, deadline heap, backoff, token bucket) hold the data structures; this file holds the
// lifecycle of a key: idle → (debouncing | waiting) → ready → running → idle, and its teardown.
import type { Logger } from 'pino';
import type { Observable, SchedulerLike, Subscriber, Subscription, TeardownLogic } from 'rxjs';
import { from } from 'rxjs';
import type { FleetView } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { ObjectKey } from '../../core/key.js';
import { formatKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Action } from '../actions.js';
import { error as errorAction, isAction } from '../actions.js';
import type { Outcome, OutcomeResult, QueueDepth, ReconcileContext, ReconcileInput, Reconciler } from '../types.js';
import type { Timed } from './deadline-heap.js';
import { DeadlineHeap } from './deadline-heap.js';
import { FairQueue } from './fair-queue.js';
import type { BackoffPolicy, RateLimit, TokenBucket } from './rate.js';
import { backoffDelay, takeToken } from './rate.js';

/**
 * `reconcile`'s config with every default applied.
 *
 * @example
 * ```ts
 * const s: EngineSettings<ConfigMap> = {
 *   concurrency: 10, debounce: undefined, backoff: { base: 5, factor: 2, max: 1_000_000 }, rateLimit: { qps: 10, burst: 100 },
 *   lookup: undefined, fleet: undefined, logger: pino(), scheduler: asyncScheduler, onDepth: undefined,
 * };
 * ```
 */
export interface EngineSettings<T extends KubeObject> {
  readonly concurrency: number;
  readonly debounce: { readonly wait: number; readonly maxWait: number } | undefined;
  readonly backoff: BackoffPolicy;
  readonly rateLimit: RateLimit | undefined;
  readonly lookup: ((key: ObjectKey) => T | undefined) | undefined;
  readonly fleet: FleetView | undefined;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  readonly onDepth: ((depth: QueueDepth) => void) | undefined;
}

type Phase = 'idle' | 'debouncing' | 'waiting' | 'ready' | 'running';

interface Entry<T extends KubeObject> extends Timed {
  readonly id: string;
  readonly key: ObjectKey;
  resource: ResourceDescriptor<T>;
  object: T | undefined;
  phase: Phase;
  /** Debounce: the trailing deadline; `at` (the heap position) may lag behind it. */
  due: number;
  /** Debounce: when the window opened, for the max wait. */
  firstAt: number;
  failures: number;
  dirty: boolean;
  dirtySince: number;
  /** Incremented per start, so a late completion of an aborted run is ignored. */
  run: number;
  startedAt: number;
  attempt: number;
  inner: Subscription | undefined;
  ctx: Context | undefined;
}

// Lazy: most reconcilers never read the signal or the logger, and both cost per reconcile.
class Context implements ReconcileContext {
  private controller: AbortController | undefined;
  private child: Logger | undefined;
  readonly fleet: FleetView | undefined;
  readonly attempt: number;
  private readonly base: Logger;
  private readonly key: ObjectKey;
  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  constructor(fleet: FleetView | undefined, base: Logger, key: ObjectKey, attempt: number) {
    this.fleet = fleet;
    this.base = base;
    this.key = key;
    this.attempt = attempt;
  }
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }
  get log(): Logger {
    this.child ??= this.base.child({ cluster: this.key.cluster, key: formatKey(this.key) });
    return this.child;
  }
  abort(reason: string): void {
    this.controller?.abort(new Error(reason));
  }
}

const toError = (e: unknown): Action => errorAction(e);

/**
 * Runs the work queue for one subscription: feeds it from `source`, reports outcomes to
 * `subscriber`, and returns the teardown.
 *
 * @example
 * ```ts
 * // The subscribe function of the Observable<Outcome> that `reconcile` returns: one engine per subscription.
 * const subscribe = (subscriber: Subscriber<Outcome>) => runEngine(source, subscriber, fn, settings);
 * ```
 * @param source - events and enqueue requests.
 * @param subscriber - where outcomes go.
 * @param fn - the reconciler.
 * @param s - the settings.
 * @returns the teardown: unsubscribes the source, cancels timers, aborts in-flight reconciles.
 */
export function runEngine<T extends KubeObject>(
  source: Observable<ReconcileInput<T>>,
  subscriber: Subscriber<Outcome>,
  fn: Reconciler<T>,
  s: EngineSettings<T>,
): TeardownLogic {
  const { scheduler, concurrency, debounce } = s;
  const entries = new Map<string, Entry<T>>();
  const ready = new FairQueue<Entry<T>>();
  const timers = new DeadlineHeap<Entry<T>>();
  let running = 0;
  let pumping = false;
  let draining = false;
  let closed = false;
  let wake: Subscription | undefined;
  let wakeAt = Infinity;
  let rateWake: Subscription | undefined;
  // Callbacks below mutate these flags; reading them through functions keeps TypeScript from
  // narrowing them as if nothing ran in between.
  const isClosed = (): boolean => closed;
  const isRunning = (e: Entry<T>, run: number): boolean => e.run === run && e.phase === 'running';
  let bucket: TokenBucket | undefined = s.rateLimit === undefined ? undefined : { tokens: s.rateLimit.burst, last: scheduler.now() };

  function add(e: Entry<T>, since: number): void {
    if (e.phase === 'running') {
      if (!e.dirty) {
        e.dirty = true;
        e.dirtySince = since;
      }
      return;
    }
    if (e.phase === 'ready') return;
    const now = scheduler.now();
    if (e.phase === 'debouncing' && debounce !== undefined) {
      // Only moves later: the heap keeps the old deadline and re-files the entry when it pops.
      e.due = Math.min(now + debounce.wait, e.firstAt + debounce.maxWait);
      return;
    }
    // A change during a backoff or requeue wait runs now: the change may be the fix.
    if (e.phase === 'waiting') timers.remove(e);
    if (debounce !== undefined && !draining) {
      e.phase = 'debouncing';
      e.firstAt = since;
      e.due = Math.min(now + debounce.wait, since + debounce.maxWait);
      timers.push(e, e.due);
      arm();
    } else {
      e.phase = 'ready';
      ready.push(e.key.cluster, e);
    }
  }

  function arm(): void {
    const top = timers.peek();
    if (top === undefined || (wake !== undefined && wakeAt <= top.at)) return;
    wake?.unsubscribe();
    wakeAt = top.at;
    wake = scheduler.schedule(onWake, Math.max(0, top.at - scheduler.now()));
  }

  function onWake(): void {
    wake = undefined;
    wakeAt = Infinity;
    const now = scheduler.now();
    for (let top = timers.peek(); top !== undefined && top.at <= now; top = timers.peek()) {
      timers.pop();
      if (top.phase === 'debouncing' && top.due > top.at) {
        timers.push(top, top.due);
        continue;
      }
      top.phase = 'ready';
      ready.push(top.key.cluster, top);
    }
    arm();
    pump();
  }

  function pump(): void {
    if (pumping || closed) return;
    pumping = true;
    try {
      while (running < concurrency && ready.size > 0 && !isClosed()) {
        if (bucket !== undefined && s.rateLimit !== undefined) {
          const t = takeToken(bucket, s.rateLimit, scheduler.now());
          bucket = t.bucket;
          if (t.wait > 0) {
            rateWake ??= scheduler.schedule(() => {
              rateWake = undefined;
              pump();
            }, t.wait);
            break;
          }
        }
        const e = ready.shift();
        if (e !== undefined) start(e);
      }
    } finally {
      pumping = false;
    }
    if (isClosed()) return;
    s.onDepth?.({ keys: entries.size, ready: ready.size, running, waiting: timers.size });
    if (draining && running === 0 && ready.size === 0) {
      closed = true;
      subscriber.complete();
    }
  }

  function start(e: Entry<T>): void {
    e.phase = 'running';
    running++;
    const run = ++e.run;
    e.startedAt = scheduler.now();
    e.attempt = e.failures + 1;
    e.dirty = false;
    const ctx = new Context(s.fleet, s.logger, e.key, e.attempt);
    e.ctx = ctx;
    const object = s.lookup === undefined ? e.object : s.lookup(e.key);
    let last: Action | undefined;
    try {
      const out = fn({ cluster: e.key.cluster, key: e.key, resource: e.resource, object }, ctx);
      if (isAction(out)) {
        finish(e, run, out);
        return;
      }
      const sub = from(out).subscribe({
        next: (a) => {
          last = a;
        },
        error: (err: unknown) => {
          finish(e, run, toError(err));
        },
        complete: () => {
          finish(e, run, last === undefined ? { _tag: 'done' } : isAction(last) ? last : toError(new TypeError('reconciler emitted a value that is not an Action')));
        },
      });
      if (isRunning(e, run)) e.inner = sub;
    } catch (err) {
      finish(e, run, toError(err));
    }
  }

  function finish(e: Entry<T>, run: number, action: Action): void {
    if (!isRunning(e, run) || closed) return;
    running--;
    e.inner = undefined;
    e.ctx = undefined;
    const now = scheduler.now();
    let result: OutcomeResult;
    let retryIn: number | undefined;
    let cause: unknown;
    if (action._tag === 'done') {
      e.failures = 0;
      result = 'done';
    } else if (action._tag === 'requeue') {
      e.failures = 0;
      result = 'requeue';
      retryIn = action.after;
    } else if (action.terminal) {
      e.failures = 0;
      result = 'terminal';
      cause = action.cause;
    } else {
      e.failures++;
      result = 'error';
      cause = action.cause;
      retryIn = action.retryAfter ?? backoffDelay(e.failures, s.backoff);
    }
    e.phase = 'idle';
    if (e.dirty) {
      // Changed while running: run exactly once more, now (the failure count is kept, so a
      // repeated failure keeps growing its backoff).
      e.dirty = false;
      retryIn = undefined;
      add(e, e.dirtySince);
    } else if (retryIn !== undefined && !draining) {
      e.phase = 'waiting';
      timers.push(e, now + retryIn);
      arm();
    } else {
      retryIn = undefined;
      entries.delete(e.id);
    }
    subscriber.next({ key: e.key, cluster: e.key.cluster, result, attempt: e.attempt, startedAt: e.startedAt, duration: now - e.startedAt, error: cause, retryIn });
    pump();
  }

  function stop(e: Entry<T>, reason: string): void {
    // Invalidate first: aborting runs user listeners synchronously, which may complete the run.
    e.run++;
    e.phase = 'idle';
    const { ctx, inner } = e;
    e.ctx = undefined;
    e.inner = undefined;
    ctx?.abort(reason);
    inner?.unsubscribe();
  }

  function dropCluster(cluster: ClusterName): void {
    ready.dropLane(cluster);
    const now = scheduler.now();
    for (const e of entries.values()) {
      if (e.key.cluster !== cluster) continue;
      entries.delete(e.id);
      timers.remove(e);
      if (e.phase !== 'running') {
        e.phase = 'idle';
        continue;
      }
      running--;
      stop(e, `cluster ${cluster} left the fleet`);
      subscriber.next({ key: e.key, cluster, result: 'dropped', attempt: e.attempt, startedAt: e.startedAt, duration: now - e.startedAt, error: undefined, retryIn: undefined });
      if (isClosed()) return;
    }
  }

  function onInput(ev: ReconcileInput<T>): void {
    if (ev.type === 'clusterRemoved') {
      dropCluster(ev.cluster);
      pump();
      return;
    }
    const id = formatKey(ev.key);
    let e = entries.get(id);
    if (e === undefined) {
      e = {
        id, key: ev.key, resource: ev.resource, object: undefined, phase: 'idle', at: 0, heapIndex: -1, due: 0, firstAt: 0,
        failures: 0, dirty: false, dirtySince: 0, run: 0, startedAt: 0, attempt: 0, inner: undefined, ctx: undefined,
      };
      entries.set(id, e);
    }
    e.resource = ev.resource;
    if (ev.type === 'applied') e.object = ev.object;
    else if (ev.type === 'deleted') e.object = undefined;
    add(e, scheduler.now());
    pump();
  }

  function onComplete(): void {
    draining = true;
    // Graceful shutdown: open debounce windows close now, scheduled retries and requeues are dropped.
    for (const e of entries.values()) {
      if (e.phase === 'debouncing') {
        timers.remove(e);
        e.phase = 'ready';
        ready.push(e.key.cluster, e);
      } else if (e.phase === 'waiting') {
        timers.remove(e);
        e.phase = 'idle';
        entries.delete(e.id);
      }
    }
    pump();
  }

  function teardown(): void {
    closed = true;
    wake?.unsubscribe();
    rateWake?.unsubscribe();
    for (const e of entries.values()) if (e.phase === 'running') stop(e, 'reconcile was unsubscribed');
    entries.clear();
    ready.clear();
    timers.clear();
    running = 0;
  }

  const sub = source.subscribe({
    next: onInput,
    error: (err: unknown) => {
      teardown();
      subscriber.error(err);
    },
    complete: onComplete,
  });
  return () => {
    sub.unsubscribe();
    teardown();
  };
}
