// The agent with `watchPublishedResources: true`: its published resources are the config's own
// entries plus the PublishedResource objects on the service cluster, and they follow those objects
// while it runs. Each time their set or a spec changes, the objects are checked again (one refused
// is refused on its own status; the others are served), the running controllers are stopped
// (reconciles in flight finish) and the new set is run: the publisher brings the APIExport and its
// schemas to the new set, and the sync controllers of a removed resource are gone. One process, one
// probe server address at a time, until SIGTERM or SIGINT.
import { Subscription, concatMap, filter, from, take } from 'rxjs';
import { ConfigError, run } from 'rxfleet';
import type { RunHandle, RunOptions, RunResult } from 'rxfleet';

type Logger = NonNullable<RunOptions['logger']>;
import { createClusterClient } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import { exitCodes, requestMetrics } from 'rxfleet/runtime';
import type { SyncAgentOptions } from './agent.js';
import { agentControllers } from './agent.js';
import { exportCluster, serviceCluster } from './clusters.js';
import { preflight } from './preflight.js';
import { acceptPublished, logVerdicts, planNames, publishedResourceSnapshots, writeVerdicts } from './published-live.js';

/**
 * What {@link runLiveAgent} takes: the agent's options, and the options of each run (its probe
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
  /** The options of each run of the controllers (`signals` is ignored: the live agent handles them). */
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
  const kcp = typeof options.kcp === 'function' ? options.kcp() : options.kcp;
  // The agent's own requests (preflight, the PublishedResources' list, watch and status patches)
  // are served on every run's /metrics beside the controllers': in rxfleet_requests_total.
  const requests = requestMetrics(agentSeries);
  const counted = { ...options.client, requests: requests.record };
  const service = createClusterClient(serviceCluster, options.service, counted);
  const provider = createClusterClient(exportCluster, kcp, counted);
  if (E.isLeft(service)) throw new ConfigError(`sync agent: the service cluster's kubeconfig cannot be used: ${service.left.message}`);
  if (E.isLeft(provider)) throw new ConfigError(`sync agent: the kcp provider workspace's kubeconfig cannot be used: ${provider.left.message}`);
  const clients = { service: service.right, kcp: provider.right };
  const runOptions: RunOptions = { ...options.run, signals: false, metricsFrom: [...(options.run.metricsFrom ?? []), requests.registry] };
  const log = options.logger;
  try {
    // The config's own entries must fit, as without watching: a mistake there stops the agent at once.
    await preflight(options.config, clients);
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
      const running = publishedResourceSnapshots(clients.service, options.config.publishedResourceSelector, log)
        .pipe(
          concatMap(async (objects) => {
            let next;
            try {
              next = await acceptPublished(options.config, objects, clients);
            } catch (err) {
              // A server that cannot be read: the running set stays until the next change.
              log.error({ cause: err instanceof Error ? err.message : String(err) }, 'cannot check the PublishedResources against the servers; the running set is kept');
              return;
            }
            logVerdicts(next.verdicts, log);
            generation.unsubscribe();
            const previous = current;
            current = undefined;
            if (previous !== undefined) await previous.stop();
            if (over()) return;
            log.info({ published: planNames(next.plans) }, 'running the published resources');
            const handle = await run(agentControllers(options, next.plans), runOptions);
            if (over()) {
              await handle.stop();
              return;
            }
            current = handle;
            // The conditions are written by the replica that runs the set: at once without replicas,
            // under leader election once this one leads (a standby writes nothing).
            const write = (): Promise<void> => writeVerdicts(clients.service, objects, next.verdicts, log, () => new Date());
            const states = handle.replica?.states;
            if (states === undefined) await write();
            else generation = states.pipe(filter((s) => s.type === 'leading'), take(1), concatMap(() => from(write()))).subscribe();
            void handle.done.then((r) => {
              if (current === handle) end(r);
            });
          }),
        )
        .subscribe({
          error: (err: unknown) => {
            end({ reason: 'failed', code: exitCodes.failed, message: err instanceof Error ? err.message : String(err), aborted: 0 });
          },
        });
      sub.add(running);
    });
  } finally {
    clients.service.close();
    clients.kcp.close();
  }
}

/** The `controller` label of the agent's own requests (no controller of its runs has it). */
const agentSeries = 'rxfleet-sync-agent';

const clean: RunResult = { reason: 'clean', code: exitCodes.clean, message: 'stopped before anything ran', aborted: 0 };
