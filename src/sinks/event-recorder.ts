// Kubernetes Events (events.k8s.io/v1) about objects in any cluster of the fleet. Repeats of the
// same event are folded into one Event per cluster (series.count and lastObservedTime, patched), as
// client-go's events broadcaster does, so a hot loop cannot flood a cluster's etcd with Events.
import type { OperatorFunction, Subscription } from 'rxjs';
import { concatMap, defer, finalize, map, Observable, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { objectKey } from '../core/key.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import type { WriteOutcome } from './result.js';
import { writeFailed, written } from './result.js';
import { send } from './send.js';
import type { ObjectReference } from '../resources/core-v1/types-3.js';
import type { EventsV1Event } from '../resources/events-v1/types.js';
import { eventsV1Events } from '../resources/events-v1/resources.js';

/**
 * One occurrence to record.
 *
 * @example
 * ```ts
 * const ev: EventRecord = { cluster, regarding: referenceTo(configMaps, cm), type: 'Normal', reason: 'Synced', action: 'Apply', note: 'copied to 3 clusters' };
 * ```
 */
export interface EventRecord {
  /** The cluster the Event is written to: the cluster of the object it is about. */
  readonly cluster: ClusterName;
  /** The object the Event is about, e.g. from {@link referenceTo}; its namespace is the Event's (`default` for a cluster-scoped one). */
  readonly regarding: ObjectReference;
  /** A second object involved (e.g. the Node a Pod was scheduled to); none when absent. */
  readonly related?: ObjectReference;
  /** `Warning` for something a person should look at, `Normal` otherwise. */
  readonly type: 'Normal' | 'Warning';
  /** Why, in UpperCamelCase (≤ 128 characters). */
  readonly reason: string;
  /** What the controller did or failed to do (≤ 128 characters). */
  readonly action: string;
  /** Human-readable details (≤ 1 kB). */
  readonly note?: string;
}

/**
 * Settings of {@link eventRecorder}.
 *
 * @example
 * ```ts
 * const cfg: EventRecorderOptions = { reportingController: 'demo.rxfleet.dev/rollouts', reportingInstance: hostname() };
 * ```
 */
export interface EventRecorderOptions {
  /** The controller, as a qualified name (`example.com/my-controller`). */
  readonly reportingController: string;
  /** This replica (e.g. pod name), ≤ 128 characters. */
  readonly reportingInstance: string;
  /** Repeats within this long of the last one join its series (default 6 min, as client-go). */
  readonly windowMs?: number;
  /** Series remembered at most, across clusters; the least recently seen is forgotten first (default 4096). */
  readonly maxEntries?: number;
}

/**
 * Records Events, aggregating repeats.
 *
 * @example
 * ```ts
 * const events = eventRecorder(ctx, { reportingController: 'demo.rxfleet.dev/rollouts', reportingInstance: 'pod-0' });
 * events.record({ cluster, regarding, type: 'Warning', reason: 'SyncFailed', action: 'Apply', note: err.message }).subscribe();
 * ```
 */
export interface EventRecorder {
  /** Creates the Event, or patches its series when the same one was recorded within the window. */
  record(event: EventRecord): Observable<WriteOutcome<EventsV1Event>>;
  /** The operator form of `record`. */
  recordEach(config?: SinkOperatorOptions): OperatorFunction<EventRecord, WriteOutcome<EventsV1Event>>;
}

// One series: the Event it lives in, its count, and a lock so its writes go out one at a time
// (concurrent patches could otherwise land out of order and lower the count).
interface Series {
  name: string;
  readonly namespace: string;
  count: number;
  /** The count the server has (or is being sent): queued patches at or below it have nothing to add. */
  sentCount: number;
  lastObserved: number;
  readonly lock: { busy: boolean; readonly queue: (() => void)[] };
}

function serialized<T>(lock: Series['lock'], work: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    let inner: Subscription | undefined;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const next = lock.queue.shift();
      if (next === undefined) lock.busy = false;
      else next();
    };
    const start = (): void => {
      inner = work.pipe(finalize(release)).subscribe(subscriber);
    };
    if (lock.busy) lock.queue.push(start);
    else {
      lock.busy = true;
      start();
    }
    return () => {
      const i = lock.queue.indexOf(start);
      if (i >= 0) {
        lock.queue.splice(i, 1);
        released = true;
      }
      inner?.unsubscribe();
    };
  });
}

// MicroTime: RFC 3339 with exactly six fractional digits.
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

/**
 * Creates an Event recorder writing `events.k8s.io/v1` Events to the cluster each record names.
 * The first occurrence creates an Event; the same regarding + type + reason + action + note again
 * in the same cluster within `windowMs` of the previous one patches that Event's
 * `series.count` and `series.lastObservedTime` instead. Memory is bounded by `maxEntries`. A
 * failed write is a Left value; the series is forgotten so the next occurrence creates afresh.
 *
 * @example
 * ```ts
 * import { eventRecorder } from 'rxfleet/sinks';
 * const recorder = eventRecorder(ctx, { reportingController: 'demo.rxfleet.dev/rollouts', reportingInstance: 'pod-0' });
 * recorder.record({ cluster, regarding: referenceTo(configMaps, cm), type: 'Normal', reason: 'Synced', action: 'Apply' }).subscribe();
 * ```
 * @param ctx - the sink context (fleet, scheduler for timestamps and windows, random for names).
 * @param config - reporting controller and instance, window and bound.
 * @returns the recorder.
 */
export function eventRecorder(ctx: SinkContext, config: EventRecorderOptions): EventRecorder {
  const windowMs = config.windowMs ?? 6 * 60_000;
  const maxEntries = config.maxEntries ?? 4096;
  const series = new Map<string, Series>();

  const newName = (regarding: string, now: number): string => {
    const suffix = `.${now.toString(16)}${Math.floor(ctx.random() * 0x10000).toString(16).padStart(4, '0')}`;
    return `${regarding.slice(0, 253 - suffix.length)}${suffix}`;
  };

  const createEvent = (s: Series, e: EventRecord, now: number): Observable<WriteOutcome<EventsV1Event>> => {
    const key = objectKey(e.cluster, s.namespace, s.name);
    const body: EventsV1Event = {
      metadata: { name: s.name, namespace: s.namespace },
      eventTime: microTime(now),
      reportingController: config.reportingController,
      reportingInstance: config.reportingInstance,
      action: e.action,
      reason: e.reason,
      type: e.type,
      regarding: e.regarding,
      ...(e.note === undefined ? {} : { note: e.note }),
      ...(e.related === undefined ? {} : { related: e.related }),
    };
    return send(ctx, e.cluster, `record event ${e.reason} about ${e.regarding.kind} ${e.regarding.name}`, (c) => c.create(eventsV1Events, body)).pipe(
      map(({ result, attempts }) => (E.isLeft(result) ? writeFailed<EventsV1Event>('create', key, result.left, attempts) : written('create', key, { changed: true, object: result.right, attempts }))),
    );
  };

  const patchSeries = (s: Series, e: EventRecord, k: string): Observable<WriteOutcome<EventsV1Event>> =>
    defer(() => {
      // Read the count when the patch goes out, not when it was queued: the latest count wins, and
      // repeats that arrived while an earlier patch was in flight ride on the next one.
      const key = objectKey(e.cluster, s.namespace, s.name);
      if (s.count <= s.sentCount) return of(written<EventsV1Event>('patch', key, { changed: false, object: undefined, attempts: 0 }));
      s.sentCount = s.count;
      const patch = { series: { count: s.count, lastObservedTime: microTime(s.lastObserved) } };
      return send(ctx, e.cluster, `update event series ${s.name}`, (c) => c.patch(eventsV1Events, s.name, patch, { type: 'merge', namespace: s.namespace })).pipe(
        concatMap(({ result, attempts }) => {
          if (E.isRight(result)) return of(written('patch', key, { changed: true, object: result.right, attempts }));
          if (result.left.type === 'NotFound') {
            // The Event expired (TTL) or was deleted: start a new one.
            s.name = newName(e.regarding.name ?? '', ctx.scheduler.now());
            s.count = 1;
            s.sentCount = 1;
            return createEvent(s, e, ctx.scheduler.now());
          }
          series.delete(k);
          return of(writeFailed<EventsV1Event>('patch', key, result.left, attempts));
        }),
      );
    });

  const record = (e: EventRecord): Observable<WriteOutcome<EventsV1Event>> =>
    defer(() => {
      const now = ctx.scheduler.now();
      const r = e.regarding;
      const k = JSON.stringify([e.cluster, r.apiVersion, r.kind, r.namespace ?? '', r.name, r.uid ?? '', e.type, e.reason, e.action, e.note ?? '', e.related?.uid ?? '']);
      let s = series.get(k);
      if (s !== undefined && now - s.lastObserved > windowMs) s = undefined;
      if (s === undefined) {
        s = { name: newName(r.name ?? '', now), namespace: r.namespace ?? 'default', count: 1, sentCount: 1, lastObserved: now, lock: { busy: false, queue: [] } };
        series.delete(k);
        series.set(k, s);
        // A Map iterates in insertion order; re-inserting on use makes the first key the least recently seen.
        if (series.size > maxEntries) {
          const oldest = series.keys().next();
          if (oldest.done !== true) series.delete(oldest.value);
        }
        const fresh = s;
        return serialized(
          fresh.lock,
          createEvent(fresh, e, now).pipe(
            map((o) => {
              if (E.isLeft(o) && series.get(k) === fresh) series.delete(k);
              return o;
            }),
          ),
        );
      }
      s.count += 1;
      s.lastObserved = now;
      series.delete(k);
      series.set(k, s);
      return serialized(s.lock, patchSeries(s, e, k));
    });

  return {
    record,
    recordEach: (opConfig?: SinkOperatorOptions) => writeEach(record, opConfig),
  };
}
