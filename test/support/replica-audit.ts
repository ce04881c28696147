// What the HA tests check replicas against, independently of the replicas' own reports: a record of
// every change the server made to some objects (list, then watch from the list's resourceVersion,
// resumed from the last one seen), and audits over it and over the replicas' logs.
//
// resourceVersions are compared as numbers across resources. The API treats them as opaque, but a
// kube-apiserver on etcd uses etcd's store-wide revision for every object, so they are one global
// order of writes: a ConfigMap write with a lower resourceVersion than a Lease update was
// committed before it. (That holds for this test server; it is not a promise of the API.)
import type { Subscription } from 'rxjs';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject, ResourceDescriptor } from '../../src/index.js';
import { resource } from '../../src/index.js';
import type { LogLine, ReplicaProcess } from './replica-process.js';

/** The fields of a coordination.k8s.io/v1 Lease the audits read. */
export interface LeaseObject extends KubeObject {
  readonly spec?: { readonly holderIdentity?: string; readonly leaseDurationSeconds?: number; readonly acquireTime?: string; readonly renewTime?: string; readonly leaseTransitions?: number };
}

/**
 * The last renewTime `holder` wrote (before resourceVersion `beforeRv`, if given), in ms since the epoch, by
 * the Lease's own stamps: from then on another replica may take the Lease only a lease duration
 * later (client-go's rule, measured from when it saw that renew).
 *
 * @example
 * const renewed = lastRenew(record.events(), 'replica-a', takeOver.rv);
 */
export function lastRenew(events: readonly ServerEvent<LeaseObject>[], holder: string, beforeRv?: bigint): number {
  const renews = events.filter((e) => (beforeRv === undefined || e.rv < beforeRv) && e.object.spec?.holderIdentity === holder).map((e) => Date.parse(e.object.spec?.renewTime ?? ''));
  const last = renews.at(-1);
  if (last === undefined || Number.isNaN(last)) throw new Error(`no renew of a Lease by ${holder}${beforeRv === undefined ? '' : ` before resourceVersion ${beforeRv}`} in the record`);
  return last;
}

/** coordination.k8s.io/v1 Leases. */
export const leaseResource = resource<LeaseObject>({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true });

/** One change seen on the server: the listed state, or a watch event. */
export interface ServerEvent<T extends KubeObject> {
  readonly type: 'LISTED' | 'ADDED' | 'MODIFIED' | 'DELETED';
  /** metadata.resourceVersion, as a number (see the file comment). */
  readonly rv: bigint;
  readonly object: T;
  /** Date.now() when the test received it. */
  readonly seenAt: number;
}

/** A running record of a resource's changes. */
export interface ServerRecord<T extends KubeObject> {
  /** Resolves once the initial list is in and the watch is open. */
  readonly ready: Promise<void>;
  events(): readonly ServerEvent<T>[];
  /** Anything that may have made the record incomplete (a failed watch, an ERROR event). */
  errors(): readonly string[];
  stop(): void;
}

interface WatchLine {
  readonly type?: string;
  readonly object?: KubeObject & { readonly message?: string };
}

/**
 * Lists then watches `r` and keeps every change, in the server's order. A watch the server ends is
 * resumed from the last resourceVersion seen (bookmarks included); anything that could lose events
 * is kept in `errors()`, which a test asserts empty.
 *
 * @example
 * const outputs = recordOnServer(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' });
 * await outputs.ready;
 */
export function recordOnServer<T extends KubeObject>(client: ClusterClient, r: ResourceDescriptor<T>, opts: { readonly namespace?: string; readonly labelSelector?: string } = {}): ServerRecord<T> {
  const events: ServerEvent<T>[] = [];
  const errors: string[] = [];
  let stopped = false;
  let sub: Subscription | undefined;
  let lastRv = '';
  const push = (type: ServerEvent<T>['type'], object: T): void => {
    events.push({ type, rv: BigInt(object.metadata.resourceVersion ?? '0'), object, seenAt: Date.now() });
  };
  const watchFrom = (onOpen?: () => void): void => {
    if (stopped) return;
    sub = client.watch(r, { ...opts, resourceVersion: lastRv }).subscribe({
      next: (text) => {
        const line = JSON.parse(text) as WatchLine;
        const o = line.object;
        if (o === undefined) return;
        if (line.type === 'ERROR') {
          errors.push(`watch ERROR event: ${o.message ?? JSON.stringify(o)}`);
          return;
        }
        if (o.metadata.resourceVersion !== undefined) lastRv = o.metadata.resourceVersion;
        if (line.type === 'ADDED' || line.type === 'MODIFIED' || line.type === 'DELETED') push(line.type, o as T);
      },
      error: (err: unknown) => {
        if (!stopped) errors.push(`watch failed: ${err instanceof Error ? err.message : JSON.stringify(err)}`);
      },
      complete: () => {
        watchFrom();
      },
    });
    // A watch says nothing until something changes: count it open once subscribed (its request
    // carries the list's resourceVersion, so nothing after the list is missed either way).
    onOpen?.();
  };
  const ready = (async () => {
    const list = await client.listAll(r, opts);
    if (E.isLeft(list)) throw new Error(`list ${r.plural}: ${list.left.message}`);
    for (const o of list.right.items) push('LISTED', o);
    lastRv = list.right.metadata.resourceVersion ?? '';
    await new Promise<void>((resolve) => {
      watchFrom(resolve);
    });
  })();
  return {
    ready,
    events: () => events,
    errors: () => errors,
    stop: () => {
      stopped = true;
      sub?.unsubscribe();
    },
  };
}

/** How to read a write off an object: its cluster, its writer, and when the writer sent it. */
export interface WriteStamp<T extends KubeObject> {
  readonly clusterOf: (o: T) => string;
  readonly writerOf: (o: T) => string | undefined;
  /** The writer's clock (ms) when it sent the write; the same machine's clock as the logs'. */
  readonly writtenAtOf: (o: T) => number;
}

/**
 * Audits every write the server saw against the writers' engagement intervals:
 * - each write was sent while its writer had the cluster engaged (by the writer's logs);
 * - in the server's order, a cluster's writes never go back to an earlier engagement: once a
 *   write of B's interval is committed, no write of A's earlier interval follows. A cluster may
 *   return to A (A, B, A after B died), but only in a new interval of A that began later.
 * With the intervals not overlapping (see overlaps), two replicas never wrote a cluster at once.
 * Returns the violations, empty when clean.
 *
 * @example
 * expect(auditWrites(outputs.events(), intervals, stamp)).toEqual([]);
 */
export function auditWrites<T extends KubeObject>(events: readonly ServerEvent<T>[], intervals: readonly Engagement[], stamp: WriteStamp<T>): string[] {
  const bad: string[] = [];
  const previous = new Map<string, Engagement>();
  const ordered = events.filter((e) => e.type === 'ADDED' || e.type === 'MODIFIED').sort((x, y) => (x.rv < y.rv ? -1 : x.rv > y.rv ? 1 : 0));
  for (const e of ordered) {
    const writer = stamp.writerOf(e.object);
    if (writer === undefined) continue;
    const cluster = stamp.clusterOf(e.object);
    const at = stamp.writtenAtOf(e.object);
    const within = intervals.find((i) => i.identity === writer && i.cluster === cluster && i.from <= at && at <= (i.to ?? Number.POSITIVE_INFINITY));
    if (within === undefined) {
      bad.push(`${cluster}: rv ${e.rv} written by ${writer} at ${at}, outside its engagements of the cluster`);
      continue;
    }
    const before = previous.get(cluster);
    if (before !== undefined && before !== within && within.from < before.from) {
      bad.push(`${cluster}: rv ${e.rv} by ${writer} (engaged from ${within.from}) committed after a write of ${before.identity}'s later engagement (from ${before.from})`);
    }
    previous.set(cluster, within);
  }
  return bad;
}

/** When a replica had a cluster engaged (its `cluster engaged` .. `cluster disengaged` log lines). */
export interface Engagement {
  readonly identity: string;
  readonly cluster: string;
  readonly from: number;
  /** Disengaged at, or the replica's exit, or undefined while still engaged. */
  readonly to: number | undefined;
}

/**
 * The engagement intervals of a replica, from its logs. An interval open when the process died
 * ends at its death (`endOf`: the time it was killed, or its exit).
 *
 * @example
 * const all = replicas.flatMap((r) => engagements(r));
 */
export function engagements(r: ReplicaProcess, endOf: number | undefined = r.exitedAt()): Engagement[] {
  const open = new Map<string, number>();
  const out: Engagement[] = [];
  for (const l of r.lines()) {
    const cluster = typeof l.cluster === 'string' ? l.cluster : undefined;
    if (cluster === undefined) continue;
    if (l.msg === 'cluster engaged') open.set(cluster, l.time);
    if (l.msg === 'cluster disengaged') {
      const from = open.get(cluster);
      if (from !== undefined) out.push({ identity: r.identity, cluster, from, to: l.time });
      open.delete(cluster);
    }
  }
  for (const [cluster, from] of open) out.push({ identity: r.identity, cluster, from, to: endOf });
  return out;
}

/**
 * Pairs of intervals of different replicas on the same cluster that overlap in time (an open
 * interval lasts until now).
 *
 * @example
 * expect(overlaps(all)).toEqual([]);
 */
export function overlaps(all: readonly Engagement[]): string[] {
  const found: string[] = [];
  const end = (e: Engagement): number => e.to ?? Number.POSITIVE_INFINITY;
  for (const [i, a] of all.entries()) {
    for (const b of all.slice(i + 1)) {
      if (a.cluster !== b.cluster || a.identity === b.identity) continue;
      if (a.from < end(b) && b.from < end(a)) found.push(`${a.cluster}: ${a.identity} [${a.from}, ${a.to ?? 'now'}] and ${b.identity} [${b.from}, ${b.to ?? 'now'}]`);
    }
  }
  return found;
}

/**
 * Who has each cluster engaged right now, by the logs of the live replicas.
 *
 * @example
 * const owners = ownersNow([a, b, c]); // Map { 'tenant-1' => ['a'], ... }
 */
export function ownersNow(rs: readonly ReplicaProcess[]): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const r of rs) {
    if (r.exitedAt() !== undefined) continue;
    for (const e of engagements(r)) if (e.to === undefined) owners.set(e.cluster, [...(owners.get(e.cluster) ?? []), e.identity]);
  }
  return owners;
}

/**
 * The lines of `r` from `since` (ms) on that satisfy `pred`.
 *
 * @example
 * const refused = linesSince(a, resumedAt, (l) => JSON.stringify(l).includes('Fenced'));
 */
export function linesSince(r: ReplicaProcess, since: number, pred: (l: LogLine) => boolean): LogLine[] {
  return r.lines().filter((l) => l.time >= since && pred(l));
}
