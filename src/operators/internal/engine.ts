// The work queue behind `reconcile`, as one subscription's worth of state. The pieces hold the data
// structures and the rules (fair queue with per-cluster caps and gates, timers, debounce windows,
// rate gate, one run, settling an action); this file holds the lifecycle of a key: idle →
// (debouncing | waiting) → ready → running → idle, and the teardown.
import type { Observable, Subscriber, TeardownLogic } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { formatKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import { tokenBucket } from '../../core/token-bucket.js';
import type { Action } from '../actions.js';
import type { Outcome, OutcomeResult, ReconcileInput, Reconciler } from '../types.js';
import { Burst } from './burst.js';
import { extendWindow, moved, openWindow } from './debounce-window.js';
import type { EngineSettings } from './engine-settings.js';
import type { Lane } from './fair-queue.js';
import { FairQueue } from './fair-queue.js';
import { gateDelay, queueProbe } from './queue-probe.js';
import { RateGate } from './rate-gate.js';
import { runOnce, settle } from './run-once.js';
import { Timers } from './timers.js';
import type { Entry } from './work-entry.js';
import { Context, newEntry } from './work-entry.js';

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
  const { scheduler, concurrency, debounce, clusterGate, observer } = s;
  const entries = new Map<string, Entry<T>>();
  const ready = new FairQueue<Entry<T>>(s.perClusterConcurrency);
  // Debounce windows, backoffs, requeues and gated clusters' lanes: one heap, one scheduled action.
  const timers = new Timers<Entry<T> | Lane<Entry<T>>>(scheduler, onDue, pump);
  // Kept only for an observer's probe, which reads it when metrics are scraped.
  const runningSet = observer === undefined ? undefined : new Set<Entry<T>>();
  const probe = runningSet === undefined ? undefined : queueProbe(runningSet, scheduler, concurrency, s.perClusterConcurrency);
  const gate = s.rateLimit === undefined ? undefined : new RateGate(tokenBucket(s.rateLimit, scheduler), scheduler, pump);
  let running = 0;
  // Keys readied in one burst count as one instant (served round-robin across clusters).
  const burst = new Burst(scheduler);
  let pumping = false;
  let draining = false;
  let closed = false;
  // Callbacks below mutate these flags; reading them through functions keeps TypeScript from
  // narrowing them as if nothing ran in between.
  const isClosed = (): boolean => closed;
  const isRunning = (e: Entry<T>, run: number): boolean => e.run === run && e.phase === 'running';

  function report(e: Entry<T>, result: OutcomeResult, now: number, error: unknown, retryIn: number | undefined): void {
    subscriber.next({ key: e.key, cluster: e.key.cluster, result, attempt: e.attempt, startedAt: e.startedAt, durationMs: now - e.startedAt, error, retryAfterMs: retryIn });
  }

  function makeReady(e: Entry<T>, now: number): void {
    e.phase = 'ready';
    e.readyAt = now;
    ready.push(e.key.cluster, e, burst.at(now));
  }

  // `counted`: false for the rerun of a key changed while running, already counted when it changed.
  function add(e: Entry<T>, since: number, counted = false): void {
    if (e.phase === 'running') {
      if (!e.dirty) {
        e.dirty = true;
        e.dirtySince = since;
        observer?.added?.(e.key.cluster);
      }
      return;
    }
    if (e.phase === 'ready') return;
    const now = scheduler.now();
    if (e.phase === 'debouncing' && debounce !== undefined) {
      extendWindow(e, debounce, now);
      return;
    }
    // A change during a backoff or requeue wait runs now: the change may be the fix.
    if (e.phase === 'waiting') timers.cancel(e);
    if (!counted) observer?.added?.(e.key.cluster);
    if (debounce !== undefined && !draining) {
      e.phase = 'debouncing';
      timers.set(e, openWindow(e, debounce, now, since));
    } else makeReady(e, now);
  }

  function onDue(item: Entry<T> | Lane<Entry<T>>, now: number): void {
    // A gated cluster's wait is over: its lane may run again, and `pump` asks its gate again.
    if (!('id' in item)) ready.ungate(item);
    else if (item.phase === 'debouncing' && moved(item)) timers.set(item, item.due);
    else {
      // A retry or requeue whose time came is queued again (an add, as client-go counts them).
      if (item.phase === 'waiting') observer?.added?.(item.key.cluster);
      makeReady(item, now);
    }
  }

  // True when the lane's cluster may not start now: its lane sits out until the gate's delay.
  function gated(gate: (cluster: ClusterName) => number, lane: Lane<Entry<T>>): boolean {
    const waitMs = gateDelay(gate(lane.name as ClusterName));
    if (waitMs === 0) return false;
    ready.gate(lane);
    timers.set(lane, scheduler.now() + waitMs);
    return true;
  }

  function pump(): void {
    if (pumping || closed) return;
    pumping = true;
    try {
      // Each turn starts a key or sits a gated lane out, so this ends.
      while (running < concurrency && !isClosed()) {
        // A worker no cluster under its cap wants is lent to one at its cap, never the last idle one.
        const lane = ready.next() ?? (s.lendIdleWorkers && concurrency - running > 1 ? ready.nextOver() : undefined);
        if (lane === undefined) break;
        if (clusterGate !== undefined && gated(clusterGate, lane)) continue;
        if (gate !== undefined && !gate.admit()) break;
        start(ready.take(lane), lane);
      }
      gate?.release();
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

  function start(e: Entry<T>, lane: Lane<Entry<T>>): void {
    e.phase = 'running';
    running++;
    const run = ++e.run;
    e.lane = lane;
    e.startedAt = scheduler.now();
    if (runningSet !== undefined) {
      runningSet.add(e);
      observer?.started?.(e.key.cluster, e.startedAt - e.readyAt);
    }
    e.attempt = e.failures + 1;
    e.dirty = false;
    const ctx = new Context(s.fleet, s.logger, e.key, e.attempt);
    e.ctx = ctx;
    const object = s.lookup === undefined ? e.object : s.lookup(e.key);
    const inner = runOnce(fn, { cluster: e.key.cluster, key: e.key, resource: e.resource, object }, ctx, (action) => {
      finish(e, run, action);
    });
    if (isRunning(e, run)) e.inner = inner;
  }

  function finish(e: Entry<T>, run: number, action: Action): void {
    if (!isRunning(e, run) || closed) return;
    running--;
    release(e);
    e.inner = undefined;
    e.ctx = undefined;
    const now = scheduler.now();
    const settled = settle(action, e.failures, s);
    let retryIn = settled.retryAfterMs;
    e.failures = settled.failures;
    e.phase = 'idle';
    if (e.dirty) {
      // Changed while running: run exactly once more, now (the failure count is kept, so a
      // repeated failure keeps growing its backoff).
      e.dirty = false;
      retryIn = undefined;
      add(e, e.dirtySince, true);
    } else if (retryIn !== undefined && !draining) {
      e.phase = 'waiting';
      timers.set(e, now + retryIn);
      if (settled.result === 'error') observer?.retried?.(e.key.cluster);
    } else {
      retryIn = undefined;
      entries.delete(e.id);
    }
    report(e, settled.result, now, settled.cause, retryIn);
    pump();
  }

  // Gives the run's slot back to its cluster's lane (which may run again).
  function release(e: Entry<T>): void {
    if (e.lane !== undefined) ready.finish(e.lane);
    e.lane = undefined;
    runningSet?.delete(e);
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
    const lane = ready.lane(cluster);
    if (lane !== undefined) timers.cancel(lane);
    ready.dropLane(cluster);
    const now = scheduler.now();
    for (const e of entries.values()) {
      if (e.key.cluster !== cluster) continue;
      entries.delete(e.id);
      timers.cancel(e);
      if (e.phase !== 'running') {
        e.phase = 'idle';
        continue;
      }
      running--;
      // Its lane is gone already: only the running set needs to forget it.
      e.lane = undefined;
      runningSet?.delete(e);
      stop(e, `cluster ${cluster} left the fleet`);
      report(e, 'dropped', now, undefined, undefined);
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
      e = newEntry(id, ev.key, ev.resource);
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
    const now = scheduler.now();
    // Graceful shutdown: open debounce windows close now, scheduled retries and requeues are dropped.
    for (const e of entries.values()) {
      if (e.phase === 'debouncing') {
        timers.cancel(e);
        makeReady(e, now);
      } else if (e.phase === 'waiting') {
        timers.cancel(e);
        e.phase = 'idle';
        entries.delete(e.id);
      }
    }
    pump();
  }

  function teardown(): void {
    closed = true;
    timers.clear();
    burst.cancel();
    gate?.cancel();
    for (const e of entries.values()) if (e.phase === 'running') stop(e, 'reconcile was unsubscribed');
    entries.clear();
    ready.clear();
    runningSet?.clear();
    running = 0;
  }

  if (probe !== undefined) observer?.attach?.(probe);

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
    // Runs once, whether the queue completed, failed or was unsubscribed.
    if (probe !== undefined) observer?.detach?.(probe);
  };
}
