// A controller run against the shared kube-apiserver through an HTTP proxy that answers 500 to
// every list, then (once the lists are let through and the cache synced) to every watch, each
// burst lasting past `degradedAfterMs`. During each burst the run reports the cluster unhealthy,
// then degraded; afterwards synced again. Each change is logged once per episode (failing,
// degraded, recovered, no longer degraded: four lines, never one per retry), the store equals a
// fresh list, every write made during the watch burst is delivered, each delete exactly once, no
// relist (a 5xx never needs one), and the controller reconciles what was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, run } from '../../src/index.js';
import { clusterListProvider } from '../../src/providers/clusters/index.js';
import type { Informers } from '../../src/streams/index.js';
import type { ActiveRule, HttpFaultProxy, Injection } from '../support/http-fault-proxy.js';
import { capturedLogs, httpProxiedServer, recorder, storeMatchesServer, workload } from './faults-support.js';
import { eventually, retrying } from '../support/wait.js';

const DEGRADED_MS = 1_500;
// At least this many 500s in a row in each burst (each burst lasts until degraded, whatever it takes).
const BURST = 5;
const quick = { initialMs: 100, factor: 2, maxMs: 400, resetAfterMs: 60_000 };
const err500: Injection = { type: 'status', code: 500, reason: 'InternalError', message: 'injected: etcdserver: request timed out' };
const NAME = clusterName('burst');

let proxy: HttpFaultProxy;
let direct: Cluster;
let viaYaml: string;
let namespace: string;

beforeAll(async () => {
  let via: Cluster;
  ({ proxy, via, viaYaml, direct, namespace } = await httpProxiedServer('burst-setup'));
  via.client.close();
});
afterAll(async () => {
  direct.client.close();
  await proxy.close();
});

interface LogLine {
  readonly msg: string;
  readonly cluster?: string;
}

/** The health-change lines of the cluster, as tags in order. */
function transitions(lines: readonly LogLine[]): string[] {
  const tag = (msg: string): string | undefined =>
    msg === 'watch failing, retrying with backoff' ? 'failing'
      : msg.startsWith('cluster unhealthy: degraded') ? 'degraded'
        : msg.startsWith('watch recovered') ? 'recovered'
          : msg.startsWith('watch no longer degraded') ? 'no longer degraded'
            : undefined;
  return lines.filter((l) => l.cluster === NAME).flatMap((l) => tag(l.msg) ?? []);
}

describe('a controller whose server answers bursts of 500', () => {
  it('reports failing, then degraded, then recovered, logs each once per burst, and keeps an exact store: lists, then watches', async () => {
    const w = workload(direct, namespace, 'burst');
    await w.prepare();
    const { lines, logger } = capturedLogs<LogLine>();
    const reconciled = new Map<string, (ConfigMap | undefined)[]>();
    let informers: Informers | undefined;
    const onLists = proxy.inject({ kinds: ['list'], resource: 'configmaps', times: Infinity, injection: err500 });
    const c = controller<ConfigMap>({
      name: 'burst',
      provider: clusterListProvider([{ name: NAME, kubeconfig: { yaml: viaYaml } }]),
      resource: configMaps,
      select: { namespace, labelSelector: w.label },
      watchOptions: { backoff: quick, degradedAfterMs: DEGRADED_MS },
      inputs: (ctx) => {
        informers = ctx.informers;
        return [];
      },
      reconcile: (req) => {
        const name = req.key.name;
        reconciled.set(name, [...(reconciled.get(name) ?? []), req.object]);
        return done();
      },
    });
    const handle: RunHandle = await run(c, { logger, signals: false, http: false });
    let onWatches: ActiveRule | undefined;
    const rec = recorder();
    const health = () => handle.health.report().clusters.find((h) => h.cluster === NAME);
    /** Holds the burst (`rule`) until the run reports it degraded after at least BURST 500s, then lifts it and waits for synced. */
    const burst = async (what: string, rule: ActiveRule, inside: () => Promise<void> = () => Promise.resolve()): Promise<void> => {
      // The first failure may be the end of a watch too young to have had a line; the 500s follow.
      const failing = await eventually(`unhealthy with a 500 during the ${what} burst`, () => (health()?.state === 'unhealthy' && health()?.reason?.includes('500 InternalError') === true ? health() : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      expect(failing.reason).toContain('injected: etcdserver: request timed out');
      await inside();
      const degraded = await eventually(`degraded during the ${what} burst`, () => (rule.hits >= BURST && health()?.reason?.startsWith('degraded:') === true ? health() : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      expect(degraded.state).toBe('unhealthy');
      expect(degraded.watches.find((h) => h.resource === 'configmaps')?.degraded).toBe(true);
      rule.remove();
      await eventually(`synced after the ${what} burst`, () => (health()?.state === 'synced' ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
    };
    try {
      await burst('list', onLists);
      expect(handle.health.report().ready).toBe(true);

      // The run's own informer, through its shared registry (a late subscriber gets the cache first).
      const cluster = handle.fleet.get(NAME);
      if (cluster === undefined || informers === undefined) throw new Error('the cluster is not engaged, or the run built no informers');
      const inf = informers.informer(cluster, configMaps, { namespace, labelSelector: w.label });
      const hsub = inf.health.subscribe(rec.onHealth);
      const sub = inf.events.subscribe(rec.onEvent);
      try {
        await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
        onWatches = proxy.inject({ kinds: ['watch'], resource: 'configmaps', times: Infinity, injection: err500 });
        // The open watch ends as a server timeout ends it; every resumption meets a 500.
        await eventually('the watch open through the proxy', () => (proxy.openWatches() === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
        proxy.endWatches();
        await burst('watch', onWatches, () => w.during());
        await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
        w.verify(rec);
        expect(rec.latest()?.relists, 'relists after 500s').toBe(0);
      } finally {
        sub.unsubscribe();
        hsub.unsubscribe();
      }
      expect(transitions(lines)).toEqual(['failing', 'degraded', 'recovered', 'no longer degraded', 'failing', 'degraded', 'recovered', 'no longer degraded']);
      // The controller worked through it: each object written reconciled in its last state.
      const server = await retrying('list', () => direct.client.listAll(configMaps, { namespace, labelSelector: w.label }));
      for (const o of server.items) {
        const name = o.metadata.name ?? '';
        await eventually(`${name} reconciled at ${o.metadata.resourceVersion ?? ''}`, () => (reconciled.get(name)?.at(-1)?.metadata.resourceVersion === o.metadata.resourceVersion ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      }
      for (const name of [...rec.deletes.keys()]) {
        await eventually(`${name} reconciled as deleted`, () => (reconciled.get(name)?.at(-1) === undefined && reconciled.has(name) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      }
    } finally {
      onLists.remove();
      onWatches?.remove();
      await handle.stop({ deadlineMs: 0 });
    }
  });
});
