// Holds one Lease this replica wants: the shared leader Lease, or its own membership Lease. It is
// client-go's leaderelection loop with its safety rule made synchronous: `valid()` goes false the
// moment the renew deadline (counted from when the last successful renew was SENT, by a monotonic
// clock) passes, so a paused process that wakes up late refuses writes before it learns anything.
// Whether someone else holds the Lease is lease-observation.ts's rule, the one sharding uses too:
// a deleted Lease stays its last holder's for a lease duration, and a holder that finds its Lease
// deleted (a renew answered 404, or a renew the server turned into a create) stops at once.
import { asyncScheduler, concat, defer, EMPTY, exhaustMap, finalize, ignoreElements, merge, mergeMap, Observable, of, ReplaySubject, share, Subject, tap, timer } from 'rxjs';
import type { ObservableInput, Subscriber, Subscription } from 'rxjs';
import type { KubeError } from '../../core/errors.js';
import type { Lease } from '../../core/object.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import { leaseApi } from './lease-api.js';
import { afterPendingIo, leaseCall } from './lease-call.js';
import type { LeaseObservation } from './lease-observation.js';
import { heldNow, heldUntil, observeLease } from './lease-observation.js';
import { claimedLease, leaseSighting, readLease, recreatedLease, releasedLease } from './lease-record.js';
import type { LeaseKeeper, LeaseKeeperOptions, LeaseState } from './lease-keeper-types.js';

export type { LeaseKeeper, LeaseKeeperCommon, LeaseKeeperOptions, LeaseState } from './lease-keeper-types.js';

type Result<T> = Either<KubeError, T>;

/** One running loop: its output and its timers, each in one slot so none piles up. */
interface Run {
  readonly out: Subscriber<LeaseState>;
  readonly wake: Subject<void>;
  loop?: Subscription;
  deadline?: Subscription;
  expiry?: Subscription;
  soon?: Subscription;
  inFlight: boolean;
  again: boolean;
}

/**
 * Makes the keeper of one Lease; nothing happens until `states` is subscribed. Every retry period
 * it renews (held: one PUT on the Lease it last wrote) or reads the Lease and claims it when it is
 * ours, released, expired, or absent and never seen. Another holder counts as fresh until
 * leaseDuration after we last saw its Lease change, by our own clock (client-go's rule: no
 * cross-machine clock comparison), and a Lease deleted after we saw it stays its last holder's
 * just as long. Every claim is a PUT with the read resourceVersion, so of two racers one gets 409.
 *
 * @example
 * ```ts
 * const keeper = leaseKeeper({ api: leaseApi(home.client), namespace: 'ops', name: 'ctl', identity, timing: leaseTiming(), mode: 'leader' });
 * const fence = () => (keeper.valid() ? undefined : fencedError());
 * ```
 * @param opts - the Lease, our identity, the timing and the injected clock and scheduler.
 * @returns the keeper.
 */
export function leaseKeeper(opts: LeaseKeeperOptions): LeaseKeeper {
  const { namespace, name, identity, timing, mode } = opts;
  const requestTimeoutMs = opts.requestTimeoutMs ?? timing.retryPeriodMs;
  // The socket timeout is a backstop well behind the keeper's own, which reads what already arrived before it gives up.
  const api = opts.api ?? leaseApi(opts.client, { timeoutMs: 2 * requestTimeoutMs });
  const clock = opts.clock ?? (() => performance.now());
  const wall = opts.wallClock ?? Date.now;
  const scheduler = opts.scheduler ?? asyncScheduler;
  const where = `${mode === 'leader' ? 'leader' : 'membership'} Lease ${namespace}/${name} on cluster "${api.cluster}"`;

  let run: Run | undefined;
  let last: LeaseState = { type: 'acquiring' };
  let held = false;
  let epoch = 0;
  let renewSentAt = 0;
  let pendingSentAt: number | undefined; // when the renew in flight was sent
  let ours: Lease | undefined; // the Lease as we last wrote it: renewed directly while held
  let claimed = false; // we wrote it at least once, so release has something to give up
  let observed: LeaseObservation | undefined; // the last record seen, by our clock (lease-observation.ts)
  let lastError: KubeError | undefined;
  let annotations: Readonly<Record<string, string>> = { ...opts.annotations };
  let annotationsVersion = 0;
  let released = false;
  let releasing: Promise<void> | undefined;

  const emit = (s: LeaseState): void => {
    last = s;
    run?.out.next(s);
  };
  const acquiring = (holder: string | undefined): void => {
    if (last.type === 'acquiring' && last.holder === holder) return;
    emit(holder === undefined ? { type: 'acquiring' } : { type: 'acquiring', holder });
  };
  const lose = (reason: string): void => {
    if (!held) return;
    held = false;
    run?.deadline?.unsubscribe();
    emit({ type: 'lost', reason: `${where}: ${reason}` });
  };
  // The same comparison as valid(), so a deadline timer that fires never disagrees with it.
  const deadlinePassed = (): boolean => renewSentAt + timing.renewDeadlineMs <= clock();
  const checkDeadline = (): void => {
    if (!held || !deadlinePassed()) return;
    // A renew in flight sent recently enough to prove the Lease ours decides when it answers (bounded by its timeout); valid() is false meanwhile.
    if (pendingSentAt !== undefined && clock() - pendingSentAt < timing.renewDeadlineMs) return;
    const ago = Math.round(clock() - renewSentAt);
    lose(`not renewed within the renew deadline of ${timing.renewDeadlineMs} ms (last successful renew sent ${ago} ms ago)${lastError === undefined ? '' : `; last error: ${lastError.message}`}`);
  };
  const armDeadline = (): void => {
    const r = run;
    r?.deadline?.unsubscribe();
    if (r === undefined || !held) return;
    // A timer may fire a little early by the monotonic clock: check, and re-arm if not yet due. A late one reads the answers that came meanwhile first (lease-call.ts).
    r.deadline = scheduler.schedule(() => {
      r.deadline = afterPendingIo(scheduler).subscribe(() => {
        checkDeadline();
        if (held && !deadlinePassed()) armDeadline();
      });
    }, Math.max(0, renewSentAt + timing.renewDeadlineMs - clock()));
  };
  const soon = (delay: number): void => {
    const r = run;
    if (r === undefined) return;
    r.soon?.unsubscribe();
    r.soon = scheduler.schedule(() => {
      r.wake.next();
    }, delay);
  };
  // An extra attempt: now if idle, else right after the one in flight (exhaustMap would drop it).
  const poke = (): void => {
    if (run === undefined) return;
    if (run.inFlight) run.again = true;
    else soon(0);
  };

  const call = <T>(input: ObservableInput<Result<T>>): Observable<Result<T>> => leaseCall(input, { timeoutMs: requestTimeoutMs, scheduler, cluster: api.cluster, where });

  // The Lease is not as we last wrote it (deleted, taken, or deleted and created anew by our own
  // renew): we can no longer prove we hold it. Stop writing now, and claim it again only through a
  // read, like any candidate (a renew of our own that we stopped waiting for and that landed
  // anyway costs a lost/held turn, which is rare and safe).
  const refused = (why: string): void => {
    const wasHeld = held;
    ours = undefined;
    lose(why);
    if (wasHeld) poke();
  };

  const onWrite = (current: Lease | undefined, res: Result<Lease>, sentAt: number, published: number): void => {
    pendingSentAt = undefined;
    if (E.isLeft(res)) {
      checkDeadline();
      lastError = res.left;
      // A renew answered 404 (a create's 404 is the namespace's, not the Lease's).
      if (res.left.type === 'NotFound' && current !== undefined) {
        observed = observeLease(observed, undefined, clock());
        refused('the Lease was deleted (a renew answered 404)');
      } else if (res.left.type === 'Conflict' || res.left.type === 'AlreadyExists') {
        // Written by someone else, or deleted: the API server answers a renew of a deleted Lease
        // 409 too (its body names the old uid). Either way read it again before the next write.
        refused(`the Lease was deleted or taken (a renew answered ${res.left.type === 'Conflict' ? '409 Conflict' : '409 AlreadyExists'})`);
      }
      return;
    }
    claimed = true;
    observed = observeLease(observed, leaseSighting(res.right), clock());
    opts.onRenewed?.(clock() - sentAt);
    if (recreatedLease(current, res.right)) {
      refused('the Lease was deleted (a renew created it anew)');
      return;
    }
    ours = res.right;
    lastError = undefined;
    // An answer that took longer than the deadline proves nothing about now: the next renew will.
    if (clock() - sentAt >= timing.renewDeadlineMs) {
      checkDeadline();
      return;
    }
    renewSentAt = sentAt;
    if (!held) {
      held = true;
      epoch += 1;
      emit({ type: 'held', epoch });
    }
    armDeadline();
    if (annotationsVersion > published) poke();
  };

  const write = (current: Lease | undefined): Observable<unknown> =>
    defer(() => {
      const published = annotationsVersion;
      const next = claimedLease(current, { namespace, name, identity, leaseDurationMs: timing.leaseDurationMs, nowMs: wall(), ...(opts.labels === undefined ? {} : { labels: opts.labels }), annotations });
      const sentAt = clock();
      pendingSentAt = sentAt;
      const done = (): void => { if (pendingSentAt === sentAt) pendingSentAt = undefined; };
      return call(current === undefined ? api.create(next) : api.replace(next)).pipe(tap((res) => { onWrite(current, res, sentAt, published); }), finalize(done));
    });

  // Waits out the observed holder's claim: come back exactly when it ends rather than up to a retry period later.
  const waitOut = (o: LeaseObservation, now: number): Observable<unknown> => {
    acquiring(o.holder);
    run?.expiry?.unsubscribe();
    if (run !== undefined) run.expiry = scheduler.schedule(() => { poke(); }, heldUntil(o) - now);
    return EMPTY;
  };

  const onRead = (res: Result<Lease>): Observable<unknown> => {
    checkDeadline();
    if (E.isLeft(res) && res.left.type !== 'NotFound') {
      lastError = res.left;
      return EMPTY;
    }
    const now = clock();
    const current = E.isRight(res) ? res.right : undefined;
    observed = observeLease(observed, current === undefined ? undefined : leaseSighting(current), now);
    if (current !== undefined && observed?.holder === identity) return write(current);
    ours = undefined;
    lose(current === undefined ? 'the Lease was deleted' : observed?.holder === '' ? 'the Lease was released by someone else' : `the Lease is held by "${observed?.holder ?? ''}"`);
    // Absent: free only if we never saw it, or saw it released, expired, or ours.
    if (observed !== undefined && observed.holder !== identity && heldNow(observed, now)) return waitOut(observed, now);
    return write(current);
  };

  const attempt = (): Observable<unknown> =>
    defer(() => {
      checkDeadline(); // a late wake-up says 'lost' before anything else happens
      if (released) return EMPTY;
      return held && ours !== undefined ? write(ours) : call(api.get(namespace, name)).pipe(mergeMap(onRead));
    });

  const core = new Observable<LeaseState>((out) => {
    if (released) {
      out.next(last);
      out.complete();
      return undefined;
    }
    const r: Run = { out, wake: new Subject<void>(), inFlight: false, again: false };
    run = r;
    last = { type: 'acquiring' };
    out.next(last);
    r.loop = merge(timer(0, timing.retryPeriodMs, scheduler), r.wake)
      .pipe(
        exhaustMap(() => {
          r.inFlight = true;
          return attempt().pipe(
            finalize(() => {
              r.inFlight = false;
              if (r.again && run === r) {
                r.again = false;
                soon(0);
              }
            }),
          );
        }),
      )
      .subscribe();
    return () => {
      for (const s of [r.loop, r.deadline, r.expiry, r.soon]) s?.unsubscribe();
      if (run === r) run = undefined;
      // Not renewing any more: whoever subscribes next starts from 'acquiring'.
      held = false;
    };
  });

  // Leader and member alike: an empty holder that others read as free at once. A deleted Lease
  // would be its last holder's for a lease duration to everyone who saw it (lease-observation.ts),
  // so a member deletes its released Lease only once its peers have polled it (two retry periods:
  // a LIST in flight at the release may have missed it), leaving nothing behind.
  const forget = (res: Result<Lease>): Observable<never> =>
    mode === 'member' && E.isRight(res)
      ? timer(2 * timing.retryPeriodMs, scheduler).pipe(mergeMap(() => call(api.delete(namespace, name, res.right.metadata.uid === undefined ? {} : { uid: res.right.metadata.uid }))), ignoreElements())
      : EMPTY;
  const releaseOnce = (lease: Lease): Observable<Result<unknown>> => call(api.replace(releasedLease(lease, wall()))).pipe(mergeMap((res) => concat(of(res), forget(res))));
  // Only while the Lease still names us: a read, then the release with what it returned.
  const viaRead = (): Observable<unknown> =>
    call(api.get(namespace, name)).pipe(mergeMap((got) => (E.isRight(got) && readLease(got.right).holder === identity ? releaseOnce(got.right) : EMPTY)));
  // First with the Lease we last wrote; if it changed meanwhile (a renew we stopped waiting for
  // landed anyway), read it once and try once more.
  const giveUp = (): Observable<unknown> =>
    ours === undefined ? viaRead() : releaseOnce(ours).pipe(mergeMap((res) => (E.isLeft(res) && res.left.type === 'Conflict' ? viaRead() : EMPTY)));

  return {
    states: core.pipe(share({ connector: () => new ReplaySubject<LeaseState>(1) })),
    valid: () => run !== undefined && !released && held && !deadlinePassed(),
    annotate(a) {
      annotations = { ...annotations, ...a };
      annotationsVersion += 1;
      if (held) poke();
    },
    release() {
      releasing ??= new Promise<void>((resolve) => {
        released = true;
        const r = run;
        // Stop renewing first (aborting a renew in flight), so nothing we send races the release.
        for (const s of [r?.loop, r?.deadline, r?.expiry, r?.soon]) s?.unsubscribe();
        lose('released');
        const done = (): void => {
          r?.out.complete();
          resolve();
        };
        if (!claimed) done();
        else giveUp().subscribe({ complete: done, error: done });
      });
      return releasing;
    },
  };
}
