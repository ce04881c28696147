// Pure helpers over Lease objects: what a Lease says (the record), and the object to write when
// acquiring, renewing or releasing one, with client-go's semantics so that Leases written by
// rxfleet read the same in kubectl and to Go controllers.
import type { Lease } from '../../core/object.js';
import type { LeaseSighting } from './lease-observation.js';

/**
 * What a Lease says, as the keeper reads it.
 *
 * @example
 * ```ts
 * const r: LeaseRecord = { holder: 'pod-a-1f2e3d', durationMs: 15_000, transitions: 2, annotations: {}, resourceVersion: '812' };
 * ```
 */
export interface LeaseRecord {
  /** The holder's identity; `''` when nobody holds the Lease. */
  readonly holder: string;
  /** How long the holder's claim lasts after a renew, from `leaseDurationSeconds` (0 when absent). */
  readonly durationMs: number;
  /** When the holder last renewed (MicroTime text), if it says. */
  readonly renewTime?: string;
  /** When the holder acquired it (MicroTime text), if it says. */
  readonly acquireTime?: string;
  /** How many times the holder changed. */
  readonly transitions: number;
  /** The Lease's annotations (sharding publishes weights and acknowledgements there). */
  readonly annotations: Readonly<Record<string, string>>;
  /** The version to send back as a precondition; absent on an object not yet stored. */
  readonly resourceVersion?: string;
}

/**
 * Reads a Lease into a {@link LeaseRecord}, defaulting what is absent.
 *
 * @example
 * ```ts
 * readLease(lease).holder; // 'pod-a-1f2e3d', or '' when released
 * ```
 * @param lease - the Lease as the server returned it.
 * @returns its record.
 */
export function readLease(lease: Lease): LeaseRecord {
  const s = lease.spec ?? {};
  return {
    holder: s.holderIdentity ?? '',
    durationMs: (s.leaseDurationSeconds ?? 0) * 1000,
    ...(s.renewTime === undefined ? {} : { renewTime: s.renewTime }),
    ...(s.acquireTime === undefined ? {} : { acquireTime: s.acquireTime }),
    transitions: s.leaseTransitions ?? 0,
    annotations: lease.metadata.annotations ?? {},
    ...(lease.metadata.resourceVersion === undefined ? {} : { resourceVersion: lease.metadata.resourceVersion }),
  };
}

/**
 * What a Lease says, as the observation rule (lease-observation.ts) reads it.
 *
 * @example
 * ```ts
 * observed = observeLease(observed, leaseSighting(lease), clock());
 * ```
 * @param lease - the Lease as the server returned it.
 * @returns its resourceVersion, holder and duration.
 */
export function leaseSighting(lease: Lease): LeaseSighting {
  const rec = readLease(lease);
  return { rv: rec.resourceVersion ?? '', holder: rec.holder, durationMs: rec.durationMs };
}

/**
 * Whether a write's answer is a new Lease rather than the one written over: it had been deleted
 * meanwhile, and the PUT created it anew (the API server creates a Lease on an update of a
 * missing name, whatever resourceVersion the body carries).
 *
 * @example
 * ```ts
 * if (recreatedLease(ours, answer)) lose('the Lease was deleted');
 * ```
 * @param before - the Lease the write was based on, if any.
 * @param answer - what the server answered.
 * @returns true when both have a uid and they differ.
 */
export function recreatedLease(before: Lease | undefined, answer: Lease): boolean {
  const uid = before?.metadata.uid;
  return uid !== undefined && answer.metadata.uid !== undefined && answer.metadata.uid !== uid;
}

/**
 * A MicroTime: RFC 3339 in UTC with six fractional digits, as the Lease API stores it.
 *
 * @example
 * ```ts
 * microTime(Date.UTC(2026, 10, 23, 10, 0, 0, 123)); // '2026-11-23T10:00:00.123000Z'
 * ```
 * @param epochMs - wall-clock milliseconds since 1970.
 * @returns the MicroTime text.
 */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * The Lease's duration in whole seconds, rounded up: the API counts seconds, and rounding down
 * would let others take over before our renew deadline's margin is spent.
 *
 * @example
 * ```ts
 * leaseSeconds(1_500); // 2
 * ```
 * @param ms - the lease duration in milliseconds.
 * @returns at least 1.
 */
export function leaseSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * What the holder writes to acquire or renew.
 *
 * @example
 * ```ts
 * const claim: LeaseClaim = { namespace: 'ops', name: 'my-controller', identity: 'pod-a-1f2e3d', leaseDurationMs: 15_000, nowMs: Date.now() };
 * ```
 */
export interface LeaseClaim {
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease. */
  readonly name: string;
  /** Our holder identity. */
  readonly identity: string;
  /** Our lease duration (written as whole seconds, rounded up). */
  readonly leaseDurationMs: number;
  /** Wall-clock now, for the MicroTimes (others never compare them with their clocks: they go by observed changes). */
  readonly nowMs: number;
  /** Labels to set (merged over the Lease's own). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations to set (merged over the Lease's own). */
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * The Lease to create (when `current` is absent) or replace (with `current`'s resourceVersion as
 * precondition) to acquire or renew it. As client-go: renewing keeps `acquireTime` and the
 * transition count; a change of holder sets `acquireTime` to now and counts one more transition.
 *
 * @example
 * ```ts
 * const next = claimedLease(current, { namespace: 'ops', name: 'ctl', identity: me, leaseDurationMs: 15_000, nowMs: Date.now() });
 * await api.replace(next); // 409 Conflict: someone wrote in between
 * ```
 * @param current - the Lease as last read or written, or undefined when it does not exist.
 * @param claim - who claims it, for how long, and what to publish.
 * @returns the object to write.
 */
export function claimedLease(current: Lease | undefined, claim: LeaseClaim): Lease {
  const now = microTime(claim.nowMs);
  const rec = current === undefined ? undefined : readLease(current);
  const same = rec?.holder === claim.identity;
  const labels = { ...current?.metadata.labels, ...claim.labels };
  const annotations = { ...current?.metadata.annotations, ...claim.annotations };
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      ...current?.metadata,
      name: claim.name,
      namespace: claim.namespace,
      ...(Object.keys(labels).length === 0 ? {} : { labels }),
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    },
    spec: {
      holderIdentity: claim.identity,
      leaseDurationSeconds: leaseSeconds(claim.leaseDurationMs),
      acquireTime: same && rec.acquireTime !== undefined ? rec.acquireTime : now,
      renewTime: now,
      leaseTransitions: rec === undefined ? 0 : same ? rec.transitions : rec.transitions + 1,
    },
  };
}

/**
 * The Lease to write when its holder steps down (client-go's release; a sharding member too):
 * empty holder and a 1 s duration, so a standby takes over at once, with the transition count kept.
 *
 * @example
 * ```ts
 * await api.replace(releasedLease(ours, Date.now())); // resourceVersion precondition: only if still ours
 * ```
 * @param current - the Lease as we last wrote it (its resourceVersion is the precondition).
 * @param nowMs - wall-clock now.
 * @returns the object to write.
 */
export function releasedLease(current: Lease, nowMs: number): Lease {
  const now = microTime(nowMs);
  return {
    ...current,
    spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: readLease(current).transitions },
  };
}
