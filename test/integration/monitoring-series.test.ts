// deploy/monitoring is built from what a running controller serves. A controller runs as a sharding
// replica (its Leases on the shared kube-apiserver) over three clusters of that server: one direct,
// one behind an HTTP fault proxy whose watch is cut and then answered 410 (an interruption and a relist),
// one behind a proxy where every list hangs (a cluster unhealthy on /readyz). It copies
// one input (writes, then unsent applies as its outputs' watch proves them needless) and fails on another
// (errors); the relisting cluster is rate-limited, then answered 429 and 403 on writes (throttling, a
// pause, a denied key). Its /metrics must then hold every metric, and
// every label, that any dashboard panel, dashboard variable or alert rule names. Also: the
// "unhealthy" series is 0 exactly for the clusters /readyz calls unhealthy, a hanging retry
// included; V8's heap limit is served; under leader election `rxfleet_replica_members` is 0, which
// RxfleetSeveralLeaders relies on. And the other way round: every rxfleet metric it serves is named by a
// panel or an alert.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { load } from 'js-yaml';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap, RunHandle } from '../../src/index.js';
import { configMaps, controller, done, error, objectKey, run, toAction } from '../../src/index.js';
import { mapToKeys } from '../../src/operators/index.js';
import { apply } from '../../src/sinks/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { clusterOf, httpProxiedServer } from '../faults/faults-support.js';
import type { HttpFaultProxy } from '../support/http-fault-proxy.js';
import { repoRoot } from '../support/binaries.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { missingFrom, sampleValue, scrapedSeries, servedFamilies } from './monitoring-promql.js';
import { httpGet, randomName } from './runtime-support.js';

const quiet = pino({ level: process.env.RT_LOG ?? 'silent' });
const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
const monitoring = join(repoRoot, 'deploy', 'monitoring');

interface Query {
  readonly where: string;
  readonly expr: string;
}

/** Every query of the shipped dashboard.json: its panels' targets, and its variables' `label_values`. */
function dashboardQueries(): Query[] {
  const d = JSON.parse(readFileSync(join(monitoring, 'dashboard.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
    templating: { list: { name: string; query?: { query?: string } | string }[] };
  };
  const panels = d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })));
  const variables = d.templating.list.flatMap((v) => {
    const q = typeof v.query === 'object' ? v.query.query : undefined;
    const m = q === undefined ? null : /^label_values\((.+),\s*(\w+)\)$/.exec(q);
    return m === null ? [] : [{ where: `variable $${v.name}`, expr: `count by (${m[2] ?? ''}) (${m[1] ?? ''})` }];
  });
  return [...panels, ...variables];
}

/** Every alert's expression in alerts.yaml. */
function alertQueries(): Query[] {
  const doc = load(readFileSync(join(monitoring, 'alerts.yaml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })));
}

const handles: RunHandle[] = [];
const proxies: HttpFaultProxy[] = [];
afterAll(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

describe('the series deploy/monitoring queries, on a running controller', () => {
  let direct: Cluster;
  let ns: string;
  let leaseNs: string;
  beforeAll(async () => {
    const server = sharedKubeApiserver();
    direct = clusterOf('direct', server.kubeconfigYaml('admin'));
    [ns, leaseNs] = await Promise.all([server.createNamespace('monitoring'), server.createNamespace('monitoring-lease')]);
    for (const name of ['in-1', 'fail-1']) {
      must(await direct.client.create(configMaps, { metadata: { name, namespace: ns, labels: { role: 'input' } }, data: { v: '1' } }), name);
    }
  });

  it('serves every metric and label that the dashboard and the alerts name', async () => {
    const relisting = await httpProxiedServer('relisting');
    const held = await httpProxiedServer('held');
    proxies.push(relisting.proxy, held.proxy);
    // held: every list hangs (the client gives up after its timeout, backs off and tries again).
    held.proxy.inject({ kinds: ['list'], resource: 'configmaps', times: Infinity, injection: { type: 'hold' } });

    const name = randomName('monitoring');
    const c = controller<ConfigMap>({
      name,
      provider: staticProvider([direct, relisting.via, held.via]),
      resource: configMaps,
      select: { namespace: ns, labelSelector: 'role=input' },
      // Outputs are watched, each change reconciling its input: the apply that follows is proved needless
      // (unsent). The three clusters are one server, so each writes outputs of its own name.
      inputs: ({ fleetWatch }) => [
        fleetWatch(configMaps, { namespace: ns, labelSelector: 'role=output' }).pipe(
          mapToKeys(configMaps, (ev) => (ev.key.name.startsWith(`out-${ev.key.cluster}-`) ? [objectKey(ev.key.cluster, ev.key.namespace, ev.key.name.slice(`out-${ev.key.cluster}-`.length))] : [])),
        ),
      ],
      reconcile: (req, ctx) => {
        const input = req.object;
        if (input === undefined) return done();
        if (input.metadata.name?.startsWith('fail') === true) return error(new Error('this input fails on purpose'));
        const output = { metadata: { name: `out-${req.cluster}-${input.metadata.name ?? ''}`, namespace: ns, labels: { role: 'output' } }, data: { ...input.data } };
        return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: output }).pipe(toAction());
      },
    });
    // relisting's client is rate-limited (one request at a time), so its writes wait: the throttling series.
    const clusterRateLimit = (cl: Cluster): { qps: number; burst: number } | undefined => (cl.name === 'relisting' ? { qps: 1, burst: 1 } : undefined);
    const handle = await run(c, { logger: quiet, signals: false, http: { port: 0 }, clusterRateLimit, replicas: { type: 'sharding', home: direct, namespace: leaseNs, timing } });
    handles.push(handle);
    const url = handle.url ?? '';
    const scrape = async (): Promise<string> => (await httpGet(`${url}/metrics`)).body;

    const stateOf = (cluster: string): string | undefined => handle.health.report().clusters.find((x) => x.cluster === cluster)?.state;
    await eventually('direct and relisting to sync', () => (stateOf('direct') === 'synced' && stateOf('relisting') === 'synced' ? true : undefined));
    // The unhealthy series says what /readyz says, also while a retry hangs (its watch `listing`).
    const retrying = (): boolean => {
      const h = handle.health.report().clusters.find((x) => x.cluster === 'held');
      return h?.state === 'unhealthy' && h.watches[0]?.state === 'listing';
    };
    const during = await eventually('a scrape while held is unhealthy and its retry hangs', async () => {
      if (!retrying()) return undefined;
      const text = await scrape();
      return retrying() && (await httpGet(`${url}/readyz`)).body.includes('cluster held: unhealthy') ? text : undefined;
    }, { timeoutMs: 60_000 });
    for (const h of handle.health.report().clusters) {
      expect(sampleValue(during, 'rxfleet_watch_healthy', { cluster: h.cluster, resource: 'configmaps' }), `rxfleet_watch_healthy of ${h.cluster} (${h.state})`).toBe(h.state === 'unhealthy' ? 0 : 1);
    }
    expect(handle.health.report().clusters.map((h) => `${h.cluster}: ${h.state}`).sort()).toEqual(['direct: synced', 'held: unhealthy', 'relisting: synced']);

    // An interruption and a relist: cut relisting's watch, and answer its resume 410 Gone.
    relisting.proxy.inject({ kinds: ['watch'], resource: 'configmaps', injection: { type: 'watchError', code: 410, reason: 'Expired' } });
    relisting.proxy.endWatches();
    await eventually('a relist, an interruption, a write and a failed reconcile in /metrics', async () => {
      const text = await scrape();
      return ['rxfleet_watch_relists_total{cluster="relisting"', 'rxfleet_watch_interruptions_total{cluster="relisting"', 'rxfleet_write_requests_total{', 'rxfleet_reconcile_errors_total{', 'rxfleet_replica_handovers_total{'].every((s) =>
        text.includes(s),
      )
        ? true
        : undefined;
    });
    // relisting's writes are answered 429 with Retry-After once (a pause of its rate limit), then 403
    // (a denied key, waiting to retry): an input change makes every cluster write again.
    relisting.proxy.inject({ kinds: ['other'], resource: 'configmaps', injection: { type: 'status', code: 429, reason: 'TooManyRequests', headers: { 'retry-after': '1' } } });
    relisting.proxy.inject({ kinds: ['other'], resource: 'configmaps', times: Infinity, injection: { type: 'status', code: 403, reason: 'Forbidden' } });
    must(await direct.client.patch(configMaps, 'in-1', { data: { v: '2' } }, { namespace: ns, type: 'merge' }), 'in-1 changed');
    const wanted = ['rxfleet_writes_unsent_total{', 'rxfleet_client_throttled_requests_total{', 'rxfleet_client_throttled_seconds_total{', 'rxfleet_client_rate_limit_pauses_total{', 'rxfleet_reconcile_denied_keys{cluster="relisting"'];
    let lacking = wanted;
    await eventually('unsent writes, throttled requests, a 429 pause and a denied key in /metrics', async () => {
      const text = await scrape();
      lacking = wanted.filter((w) => !text.includes(w));
      return lacking.length === 0 ? true : undefined;
    }, { timeoutMs: 60_000, context: () => `still lacking: ${lacking.join(', ')}` });
    globalThis.gc?.(); // nodejs_gc_duration_seconds has samples once a GC ran since the run began
    const served = await scrape();
    const series = scrapedSeries(served);
    const missing = [...dashboardQueries(), ...alertQueries()].flatMap((q) => missingFrom(series, q.expr).map((m) => `${q.where}: ${m}`));
    expect(missing).toEqual([]);
    // And the other way: every rxfleet metric the controller serves is shown by a panel or watched by an alert.
    const queries = [...dashboardQueries(), ...alertQueries()].map((q) => q.expr);
    const shown = (family: string): boolean => queries.some((e) => new RegExp(`\\b${family}(_bucket|_sum|_count)?\\b`).test(e));
    expect(servedFamilies(served).filter((f) => f.startsWith('rxfleet_') && !shown(f)), 'rxfleet metrics served that no panel or alert names').toEqual([]);
    expect(sampleValue(served, 'rxfleet_heap_size_limit_bytes', {})).toBe(getHeapStatistics().heap_size_limit);
    expect(sampleValue(served, 'rxfleet_replica_members', {})).toBe(1);
  });

  it('serves rxfleet_replica_members 0 under leader election', async () => {
    const c = controller<ConfigMap>({ name: randomName('monitoring-leader'), provider: staticProvider([direct]), resource: configMaps, select: { namespace: ns }, reconcile: () => done() });
    const handle = await run(c, { logger: quiet, signals: false, http: { port: 0 }, replicas: { type: 'leader-election', home: direct, namespace: leaseNs, timing } });
    handles.push(handle);
    const text = await eventually('the replica to lead', async () => {
      const t = (await httpGet(`${handle.url ?? ''}/metrics`)).body;
      return sampleValue(t, 'rxfleet_replica_leading', {}) === 1 ? t : undefined;
    });
    expect(sampleValue(text, 'rxfleet_replica_members', {})).toBe(0);
  });
});
