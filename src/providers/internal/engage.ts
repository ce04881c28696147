// The engine every provider shares: desired sets (whole, or the names that changed) in,
// FleetEvents out. Each candidate lives on its own (a slow or unreachable one is retried on a
// timer and holds back no other), every wait has a timeout, clients it built are closed on
// disengage and on unsubscribe, and nothing is emitted after unsubscribe (the fleet reads
// unsubscribe as "disengage everything"). Its reports go through the subscription's reporter (see
// reporting()), inline with the events they explain.
import type { ClusterClientOptions } from '../../client/client.js';
import type { MonoTypeOperatorFunction, Observable, OperatorFunction, Subscription } from 'rxjs';
import { catchError, defer, filter, from, map, Observable as RxObservable, of, repeat, take, tap, timeout, timer } from 'rxjs';
import type { Cluster, FleetEvent } from '../../streams/cluster.js';
import { disengaged, engaged } from '../../streams/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import { slices } from '../../streams/slices.js';
import { concurrencyLimit } from './limit.js';
import type { Candidate, Desired, DesiredChange } from './candidates.js';
import { changeReason, diffDesired } from './candidates.js';
import type { ContactProbe } from '../../streams/provider-options.js';
import type { Reporter, ReportScope } from './report.js';

/** First-contact probes in flight at once per provider: TLS set-ups and `/version` calls spread out, not one burst of thousands. */
const probesInFlight = 16;
/**
 * Candidates built per turn of the event loop: a desired set that adds thousands at once (kcp's
 * endpoint listing 10,000 bound workspaces) builds their clients a slice per turn, not in one
 * task of seconds (~0.1 ms each: kubeconfig, credentials, transport); a smaller one at once.
 */
const buildsPerTurn = 200;

/**
 * When to engage and how to retry: the options of {@link engageCandidates}, and the
 * {@link ReportScope} (provider name, scheduler) of the provider's reports.
 *
 * @example
 * ```ts
 * const cfg: EngageConfig = { provider: 'file', scheduler: asyncScheduler, probe: contactProbe(10_000), probeTimeoutMs: 10_000, retryIntervalMs: 30_000, removedReason: 'gone' };
 * ```
 */
export interface EngageConfig extends ReportScope {
  /** Checked before engaging; `undefined` engages at once. */
  readonly probe: ContactProbe | undefined;
  /** A probe answer slower than this counts as a failure. */
  readonly probeTimeoutMs: number;
  /** Delay before a failed probe is tried again (a fixed interval: contact either works or it does not). */
  readonly retryIntervalMs: number;
  /** The reason given when a candidate disappears from the desired set (or, as a function, of the one named). */
  readonly removedReason: string | ((name: ClusterName) => string);
  /** The provider's client options, for the clients its candidates build (`ContactOptions.client`). */
  readonly client?: ClusterClientOptions;
}

interface Slot {
  readonly candidate: Candidate;
  cluster?: Cluster;
  engaged: boolean;
  attempt?: Subscription;
}

/** Probes until the cluster answers: each try is cut at `probeTimeoutMs`, failures wait `retryIntervalMs` (and call `failed`). */
function untilAnswered(cluster: Cluster, cfg: EngageConfig, probe: ContactProbe, say: Reporter, failed: () => void, limited: MonoTypeOperatorFunction<Either<string, unknown>>): Observable<unknown> {
  const once = defer(() => from(probe(cluster))).pipe(
    take(1),
    timeout({ first: cfg.probeTimeoutMs, scheduler: cfg.scheduler, with: () => of(E.left(`no answer within ${cfg.probeTimeoutMs} ms`)) }),
    catchError((err: unknown) => of(E.left(err instanceof Error ? err.message : String(err)))),
    // Waits for a place among the probes in flight; its timeout starts when it is sent.
    limited,
    tap((r) => {
      if (E.isLeft(r)) {
        say({ type: 'waiting', cluster: cluster.name, reason: `${r.left}; retrying in ${cfg.retryIntervalMs} ms` });
        failed();
      }
    }),
  );
  return once.pipe(
    repeat({ delay: () => timer(cfg.retryIntervalMs, cfg.scheduler) }),
    filter(E.isRight),
    take(1),
  );
}

/**
 * {@link engageChanges} for providers that compute their whole desired set each time (a file's
 * contexts, a static list): each set is diffed against the last.
 *
 * @example
 * ```ts
 * reporting(cfg, (say: Reporter) => desiredSets.pipe(engageCandidates(cfg, say)));
 * ```
 * @param cfg - probing, timing and the removal reason.
 * @param say - the reporter of the subscription this runs in.
 * @returns the operator.
 */
export function engageCandidates(cfg: EngageConfig, say: Reporter): OperatorFunction<Desired, FleetEvent> {
  return (source) =>
    source.pipe(
      map((desired): DesiredChange => ({ type: 'all', desired })),
      engageChanges(cfg, say),
    );
}

/**
 * Turns {@link DesiredChange}s into FleetEvents: engages added candidates, disengages removed
 * ones, and replaces (disengaged, then engaged with a new client) those whose fingerprint or
 * meta fingerprint changed. A candidate whose build fails is reported as skipped, once per reason.
 * Each lifecycle event is followed by its report (`engaged`, `reengaged`, `disengaged`), said
 * through `say` (the subscription's reporter, see `reporting`). The source completing leaves
 * the engaged clusters engaged; its errors are reported, never forwarded.
 *
 * A `some` change touches only its names (O(names), not O(candidates)); an `all` is diffed against
 * the current set. The first change is the first discovery pass: once each of its candidates was
 * engaged, skipped, removed or failed its first probe (`waiting`), `discovered` is said, once per
 * subscription, with how many clusters are engaged when it ends. A source that errors or completes
 * before its first set ends the pass with none.
 *
 * @example
 * ```ts
 * const cfg = engineConfig('file', options, 'gone', true);
 * reporting(cfg, (say: Reporter) => watch.pipe(objectChanges(), desiredPerObject(candidateOf), engageChanges(cfg, say)));
 * ```
 * @param cfg - probing, timing and the removal reason.
 * @param say - the reporter of the subscription this runs in.
 * @returns the operator.
 */
export function engageChanges(cfg: EngageConfig, say: Reporter): OperatorFunction<DesiredChange, FleetEvent> {
  return (source) =>
    new RxObservable<FleetEvent>((subscriber) => {
      const slots = new Map<ClusterName, Slot>();
      const removedReason = (name: ClusterName): string => (typeof cfg.removedReason === 'string' ? cfg.removedReason : cfg.removedReason(name));
      const limited = concurrencyLimit<Either<string, unknown>>(probesInFlight);
      // The engine's own copy of what is desired now: `all` replaces it, `some` edits it in place.
      let current = new Map<ClusterName, Candidate>();
      // The first pass's candidates not yet settled; undefined before the first set, and once said.
      let pass: { readonly pending: Set<ClusterName>; readonly candidates: number } | undefined;
      let passSaid = false;
      const endPass = (): void => {
        if (passSaid) return;
        passSaid = true;
        const candidates = pass?.candidates ?? 0;
        pass = undefined;
        let clusters = 0;
        for (const slot of slots.values()) if (slot.engaged) clusters += 1;
        say({ type: 'discovered', clusters, candidates });
      };
      const settled = (name: ClusterName): void => {
        if (pass?.pending.delete(name) === true && pass.pending.size === 0) endPass();
      };

      const release = (slot: Slot): void => {
        slot.attempt?.unsubscribe();
        if (slot.cluster !== undefined && slot.candidate.owned !== false) slot.cluster.client.close();
      };
      const drop = (name: ClusterName, reason: string): boolean => {
        const slot = slots.get(name);
        if (slot === undefined) return false;
        slots.delete(name);
        release(slot);
        if (!slot.engaged) return false;
        subscriber.next(disengaged(name, reason));
        say({ type: 'disengaged', cluster: name, reason });
        return true;
      };
      const remove = (name: ClusterName, reason: string): void => {
        builds.drop(name);
        drop(name, reason);
        settled(name);
      };
      const engage = (slot: Slot, cluster: Cluster, replaced: string | undefined): void => {
        slot.engaged = true;
        subscriber.next(engaged(cluster));
        say(replaced === undefined ? { type: 'engaged', cluster: cluster.name } : { type: 'reengaged', cluster: cluster.name, reason: replaced });
        settled(cluster.name);
      };
      const start = (c: Candidate, change: string | undefined): void => {
        const built = c.build(cfg.client);
        if (E.isLeft(built)) {
          drop(c.name, `skipped: ${built.left}`);
          slots.set(c.name, { candidate: c, engaged: false });
          say({ type: 'skipped', candidate: c.name, reason: built.left });
          settled(c.name);
          return;
        }
        const replaced = change !== undefined && drop(c.name, change) ? change : undefined;
        const slot: Slot = { candidate: c, cluster: built.right, engaged: false };
        slots.set(c.name, slot);
        if (cfg.probe === undefined) {
          engage(slot, built.right, replaced);
          return;
        }
        slot.attempt = untilAnswered(built.right, cfg, cfg.probe, say, () => {
          settled(c.name);
        }, limited).subscribe(() => {
          engage(slot, built.right, replaced);
        });
      };

      // Added candidates start a slice per turn, each as it is desired when its turn comes.
      const builds = slices<ClusterName>(buildsPerTurn, cfg.scheduler, (name) => {
        const c = current.get(name);
        if (c !== undefined && !slots.has(name)) start(c, undefined);
      });

      const sub = source.subscribe({
        next: (step) => {
          const first = !passSaid && pass === undefined;
          if (step.type === 'all') {
            const diff = diffDesired(current, step.desired);
            const before = current;
            current = new Map(step.desired);
            if (first) pass = { pending: new Set(current.keys()), candidates: current.size };
            for (const name of diff.removed) remove(name, removedReason(name));
            for (const c of diff.changed) {
              const old = before.get(c.name);
              if (!builds.take(c.name)) start(c, old === undefined ? undefined : changeReason(old, c));
            }
            for (const c of diff.added) builds.push(c.name);
          } else {
            if (first) pass = { pending: new Set(step.set.map((c) => c.name)), candidates: step.set.length };
            for (const name of step.removed) {
              if (current.delete(name)) remove(name, removedReason(name));
            }
            for (const c of step.set) {
              const old = current.get(c.name);
              current.set(c.name, c);
              if (old === undefined) builds.push(c.name);
              else {
                const why = changeReason(old, c);
                if (why !== undefined && !builds.take(c.name)) start(c, why);
              }
            }
          }
          if (pass?.pending.size === 0) endPass();
        },
        error: (err: unknown) => {
          say({ type: 'error', reason: `discovery failed: ${err instanceof Error ? err.message : String(err)}` });
          endPass();
        },
        complete: endPass,
      });
      return () => {
        sub.unsubscribe();
        builds.close();
        for (const slot of slots.values()) release(slot);
        slots.clear();
      };
    });
}

/**
 * The default first-contact probe: `GET /version`, cut at `timeoutMs`. Any HTTP answer but 401
 * counts as contact (a 403 or 404 still proves the server is there and knows the credentials); 401,
 * TLS failures, unreachable servers and timeouts do not.
 *
 * @example
 * ```ts
 * engageCandidates({ ...cfg, probe: contactProbe(10_000) });
 * ```
 * @param timeoutMs - socket timeout of the request.
 * @returns the probe.
 */
export function contactProbe(timeoutMs: number): ContactProbe {
  return (cluster) =>
    defer(() => cluster.client.raw({ method: 'GET', path: '/version', timeoutMs })).pipe(
      map((r) => {
        if (E.isRight(r)) return E.right(true);
        const failed = r.left.type === 'Unauthorized' || r.left.type === 'Tls' || r.left.type === 'ClusterUnreachable' || r.left.type === 'Transient' || r.left.type === 'Timeout';
        return failed ? E.left(r.left.message) : E.right(true);
      }),
    );
}
