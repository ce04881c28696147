// Shared pieces of the streams marble tests: objects, watch lines and a scripted ListerWatcher whose
// calls hand out the cold observables a test prepared, recording the options each call received.
import type { Observable, ObservableInput } from 'rxjs';
import { NEVER, takeUntil, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import type { ListOptions, WatchOptions } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, ConfigMap, Either, KubeError, ObjectList } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { WatchEvent, WatchHealth, WatchSignal, ListerWatcher } from '../../src/streams/index.js';

export const east = clusterName('east');

export { testScheduler } from '../support/marbles.js';

export function cm(name: string, rv: string, namespace = 'default', labels?: Record<string, string>): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, resourceVersion: rv, ...(labels === undefined ? {} : { labels }) } };
}

/** The watch events of a listing's start and end. */
export const initStarted: WatchEvent<ConfigMap> = { type: 'initStarted' };
export const initDone: WatchEvent<ConfigMap> = { type: 'initDone' };
/** Watch events of an object: listed, applied live, deleted. */
export const initApply = (object: ConfigMap): WatchEvent<ConfigMap> => ({ type: 'initApply', object });
export const applied = (object: ConfigMap): WatchEvent<ConfigMap> => ({ type: 'applied', object });
export const deleted = (object: ConfigMap): WatchEvent<ConfigMap> => ({ type: 'deleted', object });

/** A whole listing of these objects, as an informer receives it. */
export const listing = (...objs: ConfigMap[]): WatchEvent<ConfigMap>[] => [initStarted, ...objs.map(initApply), initDone];

/** The cluster of an object of a shared watch split by namespace: the namespace's name. */
export const byNamespace = (o: ConfigMap): ClusterName | undefined => (o.metadata.namespace === undefined ? undefined : clusterName(o.metadata.namespace));

export function page(rv: string, items: readonly ConfigMap[], cont?: string): Either<KubeError, ObjectList<ConfigMap>> {
  return E.right({ metadata: { resourceVersion: rv, ...(cont === undefined ? {} : { continue: cont }) }, items });
}

export function line(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: ConfigMap): string {
  return JSON.stringify({ type, object: obj });
}

export function bookmark(rv: string, initialEventsEnd = false): string {
  const annotations = initialEventsEnd ? { 'k8s.io/initial-events-end': 'true' } : undefined;
  return JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv, ...(annotations === undefined ? {} : { annotations }) } } });
}

export function gone(): string {
  return JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } });
}

export function err(tag: KubeError['type'], fields: { code?: number; retryAfterSeconds?: number } = {}): KubeError {
  return kubeError(tag, east, `test ${tag}`, fields);
}

export interface Scripted {
  readonly source: ListerWatcher<ConfigMap>;
  readonly lists: ListOptions[];
  readonly watches: WatchOptions[];
}

/** A source handing out `lists` and `watches` in order (NEVER once the watches run out). */
export function scripted(lists: ObservableInput<Either<KubeError, ObjectList<ConfigMap>>>[], watches: Observable<string>[]): Scripted {
  const listCalls: ListOptions[] = [];
  const watchCalls: WatchOptions[] = [];
  return {
    lists: listCalls,
    watches: watchCalls,
    source: {
      list: (o) => {
        listCalls.push(o);
        const next = lists.shift();
        if (next === undefined) throw new Error(`unexpected list call ${JSON.stringify(o)}`);
        return next;
      },
      watch: (o) => {
        watchCalls.push(o);
        return watches.shift() ?? NEVER;
      },
    },
  };
}

/** A readable label of a watch event, for recorded timelines. */
export function label(ev: { type: string; object?: ConfigMap }): string {
  return ev.object === undefined ? ev.type : `${ev.type} ${ev.object.metadata.name ?? ''}`;
}

/** What {@link record} saw: `frame label` per event, and every health snapshot. */
export interface Timeline {
  readonly events: string[];
  readonly health: WatchHealth[];
}

/** Subscribes for `untilMs` of virtual time and records `frame label` for each event and every health snapshot. */
export function record(ts: TestScheduler, signals: Observable<WatchSignal<ConfigMap>>, untilMs: number): Timeline {
  const t: Timeline = { events: [], health: [] };
  signals.pipe(takeUntil(timer(untilMs, ts))).subscribe((s) => {
    if (s.type === 'event') t.events.push(`${ts.now()} ${label(s.event)}`);
    else t.health.push(s.health);
  });
  return t;
}
