// How a provider's reports reach its own stream: one reporting scope per subscription stamps each
// report with the provider's name and the scheduler's clock and emits it as a `report` FleetEvent,
// in order with the fleet events around it. A provider subscribed twice reports twice, once to each
// subscriber; nothing is emitted after unsubscribe. (ProviderReport is in streams/provider-report.ts.)
import type { Observable, SchedulerLike } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';
import type { FleetEvent, Provider } from '../../streams/cluster.js';
import { reported } from '../../streams/cluster.js';
import type { ProviderReport } from '../../streams/provider-report.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A report before the scope stamps it with `provider` and `at`. @example `{ type: 'error', reason: 'scan failed' }` */
export type ReportInput = DistributiveOmit<ProviderReport, 'provider' | 'at'>;

/** Says one report into the provider's stream. @example `say({ type: 'skipped', candidate: 'east', reason: 'no kubeconfig key' })` */
export type Reporter = (r: ReportInput) => void;

/**
 * Who reports and on which clock: the provider's name in reports and the scheduler that stamps
 * them. {@link EngageConfig} is one.
 *
 * @example
 * ```ts
 * const scope: ReportScope = { provider: 'multi', scheduler: asyncScheduler };
 * ```
 */
export interface ReportScope {
  readonly provider: string;
  readonly scheduler: SchedulerLike;
}

/**
 * A {@link Reporter} that stamps reports and hands them, as `report` FleetEvents, to `emit`.
 *
 * @example
 * ```ts
 * const events: FleetEvent[] = [];
 * reporter({ provider: 'file', scheduler: asyncScheduler }, (ev: FleetEvent) => events.push(ev))({ type: 'error', reason: 'scan failed' });
 * ```
 * @param scope - the provider's name and clock.
 * @param emit - where the events go.
 * @returns the reporter.
 */
export function reporter(scope: ReportScope, emit: (ev: FleetEvent) => void): Reporter {
  return (partial) => {
    emit(reported(Object.freeze({ ...partial, provider: scope.provider, at: scope.scheduler.now() })));
  };
}

/**
 * A provider whose discovery reports into its own output. Per subscription, `body` gets a fresh
 * {@link Reporter} whose reports are emitted synchronously, between the fleet events `body` emits,
 * in the order they were said; after unsubscribe (or completion) it says nothing. Every source of
 * reports (the engine, a management watch, a failing scan) uses that one reporter.
 *
 * @example
 * ```ts
 * const cfg = engineConfig('file', options, 'its file is gone', true);
 * const provider = reporting(cfg, (say: Reporter) => desiredSets(say).pipe(engageCandidates(cfg, say)));
 * ```
 * @param scope - the provider's name and clock.
 * @param body - builds the provider's FleetEvents with the subscription's reporter.
 * @returns the cold provider.
 */
export function reporting(scope: ReportScope, body: (say: Reporter) => Observable<FleetEvent>): Provider {
  // Not merge(subject, body): reports said while `body` is being subscribed must not be lost, and
  // the gate below is what guarantees silence after unsubscribe, whatever `body` still holds.
  return new RxObservable<FleetEvent>((subscriber) => {
    let open = true;
    const say = reporter(scope, (ev) => {
      if (open) subscriber.next(ev);
    });
    const sub = body(say).subscribe({
      next: (ev) => { subscriber.next(ev); },
      error: (err: unknown) => {
        open = false;
        subscriber.error(err);
      },
      complete: () => {
        open = false;
        subscriber.complete();
      },
    });
    return () => {
      open = false;
      sub.unsubscribe();
    };
  });
}

/**
 * Reports the problems of successive looks at a source (a scan, a poll) once each while they
 * persist: a problem is said when it appears, not again while every later look still has it, and
 * again if it comes back after a look without it. Problems are told apart by their content.
 *
 * @example
 * ```ts
 * const problems = reportProblems(say);
 * problems([{ type: 'skipped', candidate: '/etc/fleet', reason: 'kubeconfig path /etc/fleet does not exist' }]); // said
 * problems([{ type: 'skipped', candidate: '/etc/fleet', reason: 'kubeconfig path /etc/fleet does not exist' }]); // not again
 * ```
 * @param say - the reporter.
 * @returns a function taking every problem of one look.
 */
export function reportProblems(say: Reporter): (problems: readonly ReportInput[]) => void {
  let known = new Set<string>();
  return (problems) => {
    const now = new Set<string>();
    for (const p of problems) {
      const key = JSON.stringify(p);
      if (!known.has(key) && !now.has(key)) say(p);
      now.add(key);
    }
    known = now;
  };
}
