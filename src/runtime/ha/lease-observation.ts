// The one rule by which a replica judges whether someone holds a Lease, shared by leader election
// (lease-keeper.ts) and sharding (peers.ts): client-go's observed time. A holder's claim lasts
// until its lease duration has passed since we last SAW its record change, by our own monotonic
// clock; no timestamp written by another machine is ever compared with ours. A Lease that
// disappears after we observed it is still its last observed record, not a free Lease: its holder
// may be writing until its renew deadline, which it counts from a renew we may have seen.
// Only a record we never observed (a Lease absent at our first look) tells us nothing.

/**
 * What one look at a Lease showed.
 *
 * @example
 * ```ts
 * const s: LeaseSighting = { rv: '812', holder: 'pod-a-1f2e3d', durationMs: 15_000 };
 * ```
 */
export interface LeaseSighting {
  /** The Lease's resourceVersion: a new one is a change. */
  readonly rv: string;
  /** The holder's identity; `''` when released (or being deleted). */
  readonly holder: string;
  /** How long the holder's claim lasts after a change we observe. */
  readonly durationMs: number;
}

/**
 * The last record observed of one Lease, and when (our monotonic clock) it was seen to change.
 *
 * @example
 * ```ts
 * const o: LeaseObservation = { rv: '812', holder: 'pod-a-1f2e3d', durationMs: 15_000, changedAt: 40_120, gone: false };
 * ```
 */
export interface LeaseObservation extends LeaseSighting {
  /** Monotonic ms when the record was last seen to change (a new resourceVersion). */
  readonly changedAt: number;
  /** The Lease was absent at the last look: the record stands, its clock keeps running. */
  readonly gone: boolean;
}

/**
 * Folds one look at a Lease into what we know of it. A new resourceVersion is a change, stamped
 * `now`. An absent Lease keeps the last record and its `changedAt` (`gone: true`); one that comes
 * back with the resourceVersion we already knew (a stale read) changes nothing either. Absent and
 * never observed: `undefined`, nothing known.
 *
 * @example
 * ```ts
 * let o = observeLease(undefined, { rv: '7', holder: 'a', durationMs: 15_000 }, 1_000); // changedAt 1000
 * o = observeLease(o, undefined, 3_000); // deleted: still a's, held until 16000
 * heldUntil(o); // 16_000
 * ```
 * @param previous - what we knew, if anything.
 * @param seen - what this look showed; `undefined` when the Lease does not exist.
 * @param now - our monotonic clock.
 * @returns what we know now.
 */
export function observeLease(previous: LeaseObservation | undefined, seen: LeaseSighting | undefined, now: number): LeaseObservation | undefined {
  if (seen === undefined) return previous === undefined || previous.gone ? previous : { ...previous, gone: true };
  if (previous?.rv === seen.rv) return previous.gone ? { ...previous, gone: false } : previous;
  return { rv: seen.rv, holder: seen.holder, durationMs: seen.durationMs, changedAt: now, gone: false };
}

/**
 * Until when (our monotonic ms) the observed holder may still be writing: lease duration after
 * the last change we saw. A released record (no holder) is free at once.
 *
 * @example
 * ```ts
 * heldUntil({ rv: '7', holder: 'a', durationMs: 15_000, changedAt: 1_000, gone: true }); // 16_000
 * ```
 * @param o - the observation.
 * @returns the end of the holder's claim, `-Infinity` when nobody holds it.
 */
export function heldUntil(o: LeaseObservation): number {
  return o.holder === '' ? Number.NEGATIVE_INFINITY : o.changedAt + o.durationMs;
}

/**
 * Whether someone holds the Lease now by what we observed: never when we observed nothing.
 *
 * @example
 * ```ts
 * if (heldNow(observed, clock()) && observed?.holder !== me) wait();
 * ```
 * @param o - the observation, if any.
 * @param now - our monotonic clock.
 * @returns true while the observed holder's claim lasts.
 */
export function heldNow(o: LeaseObservation | undefined, now: number): boolean {
  return o !== undefined && now < heldUntil(o);
}
