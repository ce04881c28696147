// The agent with `watchPublishedResources: true`: its published resources are the config's own
// entries plus the PublishedResource objects on the service cluster, and they follow those objects
// while it runs. Each time their set or a spec changes, the objects are checked again (one refused
// is refused on its own status; the others are served) and ONE run changes in place: the
// controllers of a plan that changed or went are removed (reconciles in flight finish), those of a
// new or changed plan are added, and the publishers are replaced so they bring the APIExports and their
// schemas to the new set. The other plans' controllers, their caches, the probe server and the Lease
// stay. Entries of deleted PublishedResources leave the APIExports (export-retire.ts). With other
// kcp installations, each is checked, published to and retired from on its own, one whose kcp cannot
// be read holding back no other (live-installations.ts); what could not be checked (an installation,
// or the default kcp) is checked again after a capped backoff; while one is refused, a change of an
// APIExport it was checked against checks again, coalesced (export-changes.ts), since the refusal may
// have been that export's. One process until SIGTERM or SIGINT.
import { BehaviorSubject, EMPTY, Subject, Subscription, concatMap, distinctUntilChanged, filter, from, map, merge, switchMap, take, tap, timer } from 'rxjs';
import { run } from 'rxfleet';
import type { RunHandle, RunOptions, RunResult } from 'rxfleet';

type Logger = NonNullable<RunOptions['logger']>;
import { exitCodes, requestMetrics } from 'rxfleet/runtime';
import type { SyncAgentOptions } from './agent.js';
import { planControllers, publishers, syncAgentProvider } from './agent.js';
import { retireDeleted } from './export-retire.js';
import type { WatchedExport } from './export-changes.js';
import { exportChanges } from './export-changes.js';
import { agentClients, installationClient } from './agent-clients.js';
import { installationChecks } from './installation-preflight.js';
import { liveInstallations } from './live-installations.js';
import { agentSeries, defaultAgentName } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { schemaFollower } from './schema-follow.js';
import { preflight } from './preflight.js';
import { preflightRound } from './preflight-round.js';
import type { PublishedResourceObject } from './published-live.js';
import { acceptPublished, logVerdicts, planNames, publishedResourceSnapshots, writeVerdicts } from './published-live.js';

/**
 * What {@link runLiveAgent} takes: the agent's options, and the options of its one run (its probe
 * server, logger, replicas); signals are the live agent's own.
 *
 * @example
 * ```ts
 * const o: LiveAgentOptions = { config, kcp: { file: 'provider.kubeconfig' }, service: { file: 'service.kubeconfig' }, logger, run: { http: { port: 8080 } } };
 * ```
 */
export interface LiveAgentOptions extends SyncAgentOptions {
  /** Where the agent says what it serves and refuses. */
  readonly logger: Logger;
  /** The options of the run of the controllers (`signals` is ignored: the live agent handles them). */
  readonly run: RunOptions;
}

/**
 * Runs the agent, following the PublishedResources of the service cluster, until SIGTERM or SIGINT
 * (or a run ends on its own).
 *
 * @example
 * ```ts
 * const result = await runLiveAgent({ config, kcp, service, logger, run: { name: 'rxfleet-sync', http: { port: 8080 } } });
 * process.exitCode = result.code;
 * ```
 * @param options - the agent's and each run's options.
 * @returns how it ended.
 * @throws ConfigError (as a rejection) when a kubeconfig cannot be used or the config's own entries do not fit the servers.
 */
export async function runLiveAgent(options: LiveAgentOptions): Promise<RunResult> {
  // The agent's own requests (preflight, the PublishedResources' list, watch and status patches)
  // are served on every run's /metrics beside the controllers': in rxfleet_requests_total.
  const requests = requestMetrics(agentSeries);
  const counted = { ...options.client, requests: requests.record };
  const countedOptions: LiveAgentOptions = { ...options, client: counted };
  const clients = agentClients(countedOptions);
  const runOptions: RunOptions = { ...options.run, signals: false, metricsFrom: [...(options.run.metricsFrom ?? []), requests.registry] };
  const log = options.logger;
  try {
    // The config's own entries must fit, as without watching: a mistake there stops the agent at once.
    // Each other installation as at a start without watching: a problem stops the start, a kcp that
    // cannot be read keeps its installation out of the fleet until its preflight passes. One round.
    const start = preflightRound(countedOptions, clients);
    let checks;
    try {
      await preflight(options.config, start.clients);
      checks = await installationChecks(countedOptions, start, clients);
    } finally {
      start.close();
    }
    const others = liveInstallations(countedOptions, options.logger);
    // One provider for the agent's life: its watches follow the published set as it changes.
    const follower = schemaFollower([]);
    const shared = syncAgentProvider(options, follower, checks);
    return await new Promise<RunResult>((resolve) => {
      let current: RunHandle | undefined;
      let ended = false;
      // Read after each await: a signal may have come meanwhile.
      const over = (): boolean => ended;
      const sub = new Subscription();
      // The current set's wait to lead before it writes its verdicts.
      let generation = new Subscription();
      sub.add(() => {
        generation.unsubscribe();
      });
      const end = (result: RunResult | undefined): void => {
        if (ended) return;
        ended = true;
        sub.unsubscribe();
        process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
        const last = current;
        current = undefined;
        void (last === undefined ? Promise.resolve(result ?? clean) : last.stop()).then((r) => {
          resolve(result ?? r);
        });
      };
      const onSignal = (): void => {
        end(undefined);
      };
      process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
      // What runs now, by plan: its fingerprint and its controllers' names; what the publishers were made of.
      let served = new Map<string, RunningPlan>();
      let published = new Map<string, string>();
      const agentName = options.config.agentName ?? defaultAgentName;
      // A check that could not read a kcp is made again (the last objects), unless a change comes first.
      const recheck = new Subject<void>();
      let pending = new Subscription();
      sub.add(() => {
        pending.unsubscribe();
      });
      const again = (complete: boolean): void => {
        const delayMs = others.recheckDelayMs(complete);
        if (delayMs === undefined) return;
        log.warn({ delayMs }, 'the PublishedResources could not be checked against every kcp; checked again in a while');
        pending = timer(delayMs).subscribe(() => {
          recheck.next();
        });
      };
      // While a PublishedResource is refused, a change of an export it was checked against checks
      // again (export-changes.ts): the refusal may have been that export's. One check waits at most.
      const refusing = new BehaviorSubject(false);
      let queued = false;
      const watched: WatchedExport[] = [
        { apiExport: options.config.apiExport, open: () => ({ client: clients.kcp, close: () => undefined }) },
        ...(options.config.installations ?? []).map((i) => ({ apiExport: i.apiExport ?? options.config.apiExport, open: () => {
          const client = installationClient(countedOptions, i);
          return { client, close: () => { client.close(); } };
        } })),
      ];
      sub.add(refusing.pipe(distinctUntilChanged(), switchMap((r) => (r ? exportChanges(watched) : EMPTY))).subscribe(() => {
        if (queued) return;
        queued = true;
        log.info({}, 'an APIExport changed while a PublishedResource is refused; the PublishedResources are checked again');
        recheck.next();
      }));
      let latest: readonly PublishedResourceObject[] = [];
      const snapshots = publishedResourceSnapshots(clients.service, options.config.publishedResourceSelector, log).pipe(
        tap((objects) => {
          latest = objects;
        }),
      );
      const running = merge(snapshots, recheck.pipe(map(() => latest)))
        .pipe(
          concatMap(async (objects) => {
            pending.unsubscribe();
            queued = false;
            let next;
            // Each server read once for the whole round, each installation through one connection,
            // which its removals use too: the round ends once they are done, or a newer round starts.
            const round = preflightRound(countedOptions, clients);
            try {
              next = await acceptPublished(options.config, objects, round.clients, round.checks);
            } catch (err) {
              round.close();
              // The default kcp or the service cluster cannot be read: the running set stays.
              log.error({ cause: err instanceof Error ? err.message : String(err) }, 'cannot check the PublishedResources against the servers; the running set is kept');
              again(false);
              return;
            }
            let removing = false;
            try {
              for (const [installation, cause] of next.unchecked) log.warn({ installation, cause }, 'installation not checked: its export keeps what it had, minus what is no longer published');
              again(next.unchecked.size === 0);
              logVerdicts(next.verdicts, log);
              refusing.next(next.verdicts.some((v) => !v.accepted));
              generation.unsubscribe();
              if (over()) return;
              const wanted = new Map(next.plans.map((p) => [p.published.name, { key: planKey(p), plan: p }]));
              // Only the plans that changed stop and start again; the others keep their queues and caches.
              const leaving = [...served].filter(([name, r]) => wanted.get(name)?.key !== r.key);
              const joining = [...wanted].filter(([name, w]) => served.get(name)?.key !== w.key);
              follower.follow(next.plans.map((p) => p.kcp));
              // A controller joining the running run is past the provider's first pass: it is told by the run's health.
              const discovered = current?.health.changes.pipe(filter((r) => r.discovery.firstPassDone));
              const made = new Map(joining.map(([name, w]) => [name, { key: w.key, controllers: planControllers(w.plan, shared, discovered) }]));
              const byInstallation = others.plansAfter(next);
              const publisher = publishers(options, next.plans, shared, byInstallation);
              // Only the publishers whose plans changed are replaced: one of an installation whose kcp does
              // not answer may take the shutdown deadline to stop, and must not hold the others back.
              const sets = [next.plans, ...(options.config.installations ?? []).map((i) => byInstallation.get(i.name) ?? next.plans)];
              const publishing = new Map(publisher.map((c, k) => [c.name, JSON.stringify((sets[k] ?? []).map(planKey))]));
              const renewed = publisher.filter((c) => published.get(c.name) !== publishing.get(c.name));
              const changed = leaving.length > 0 || joining.length > 0 || renewed.length > 0;
              log.info({ published: planNames(next.plans), stopped: leaving.map(([n]) => n), started: joining.map(([n]) => n) }, 'running the published resources');
              if (current === undefined) {
                const handle = await run([...publisher, ...[...made.values()].flatMap((m) => m.controllers)], runOptions);
                if (over()) {
                  await handle.stop();
                  return;
                }
                current = handle;
                void handle.done.then((r) => {
                  if (current === handle) end(r);
                });
              } else if (changed) {
                await current.remove([...renewed.map((c) => c.name), ...leaving.flatMap(([, r]) => r.names)]);
                if (over()) return;
                current.add([...renewed, ...[...made.values()].flatMap((m) => m.controllers)]);
              }
              published = publishing;
              served = new Map([...[...served].filter(([name]) => !leaving.some(([n]) => n === name)), ...[...made].map(([name, m]) => [name, { key: m.key, names: m.controllers.map((c) => c.name) }] as const)]);
              // The conditions (and the export's entries of deleted PublishedResources) are written by
              // the replica that runs the controllers: at once without replicas, under leader election
              // once this one leads (a standby writes nothing).
              const keep = new Set([...options.config.published.map((p) => p.name), ...objects.map((o) => o.metadata.name ?? '')]);
              const write = async (): Promise<void> => {
                await writeVerdicts(clients.service, objects, next.verdicts, log, () => new Date());
                await retireDeleted(clients.kcp, { apiExport: options.config.apiExport, agentName, keep, logger: log });
                await others.retire(keep, next.unchecked, round);
                log.info({ publishedResources: objects.length }, 'the PublishedResources checked: verdicts written, entries of deleted ones removed');
              };
              const states = current.replica?.states;
              if (states === undefined) await write();
              else {
                // A standby keeps the round's connections until it leads or a newer round starts.
                generation = states.pipe(filter((s) => s.type === 'leading'), take(1), concatMap(() => from(write()))).subscribe();
                generation.add(() => {
                  round.close();
                });
                removing = true;
              }
            } finally {
              if (!removing) round.close();
            }
          }),
        )
        .subscribe({
          error: (err: unknown) => {
            const message = err instanceof Error ? err.message : String(err);
            log.error({ cause: message }, 'cannot follow the PublishedResources; stopping');
            end({ reason: 'failed', code: exitCodes.failed, message, aborted: 0 });
          },
        });
      sub.add(running);
    });
  } finally {
    clients.service.close();
    clients.kcp.close();
  }
}

/** A plan that runs: what it was started from, and its controllers' names. */
interface RunningPlan {
  readonly key: string;
  readonly names: readonly string[];
}

// What a plan's controllers are made from (the compiled mutations follow from the entry): equal
// keys, nothing to restart.
const planKey = (p: PublishedPlan): string => JSON.stringify([p.published, p.agentName, p.service, p.kcp, p.publishedVersions, p.statusSubresource, p.related ?? {}]);

const clean: RunResult = { reason: 'clean', code: exitCodes.clean, message: 'stopped before anything ran', aborted: 0 };
