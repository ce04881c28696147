// The per-cluster client-side rate limit under `run`, on the real kube-apiserver: cluster `a` is
// limited to 2 QPS (burst 2) with 20 writes to make, cluster `b` is not limited. b's writes all
// finish while a is still throttled, and a never sends more than burst + qps × t: counted by the
// server itself (the Secrets a's writes created in this test's namespace, which only a writes: the
// server's request metrics are shared with every test on the same kube-apiserver) and at a's own
// client, under the limiter, for every request a sends (its watch's list and watch included).
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { defer } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { Cluster, ConfigMap, RunHandle } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { configMaps, controller, done, run, secrets } from '../../src/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { clientFrom, clusterFrom, randomName } from './runtime-support.js';
import { eventually, must } from '../support/wait.js';

const quiet = pino({ level: process.env.RT_LOG ?? 'silent' });
const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

const QPS = 2;
const BURST = 2;
const KEYS = 20;

/** Records the time of every request the client sends (every call is one request, watches one per opening), and the names it applies. */
function timedClient(client: ClusterClient, at: number[], applied: string[]): ClusterClient {
  const note = (): void => {
    at.push(performance.now());
  };
  return {
    ...client,
    get: (r, name, opts) => (note(), client.get(r, name, opts)),
    list: (r, opts) => (note(), client.list(r, opts)),
    watch: (r, opts) => defer(() => (note(), client.watch(r, opts))),
    create: (r, obj, opts) => (note(), client.create(r, obj, opts)),
    update: (r, obj, opts) => (note(), client.update(r, obj, opts)),
    apply: (r, obj, opts) => (note(), applied.push(obj.metadata.name ?? ''), client.apply(r, obj, opts)),
    patch: (r, name, p, opts) => (note(), client.patch(r, name, p, opts)),
    delete: (r, name, opts) => (note(), client.delete(r, name, opts)),
    raw: (req) => (note(), client.raw(req)),
  };
}

/** The Secrets a's writes created in `namespace`, as the server holds them now. */
async function secretsWritten(admin: ClusterClient, namespace: string): Promise<number> {
  const list = must(await admin.list(secrets, { namespace }));
  return list.items.filter((o) => o.metadata.name?.startsWith('out-') === true).length;
}

interface Figures {
  /** a's finished writes when b's last write finished. */
  readonly aDoneWhenBFinished: number;
  readonly bFinishedMs: number;
  readonly aFinishedMs: number;
  /** a's requests that waited in its client for a token (`rxfleet_client_throttled_requests_total`). */
  readonly aRequestsThatWaited: number;
}

/** Runs the two clusters with `concurrency` workers, checks a's pace, and returns the figures. */
async function scenario(concurrency: number | undefined): Promise<Figures> {
  const server = sharedKubeApiserver();
  const namespace = await server.createNamespace('rl');
  const yaml = server.kubeconfigYaml('admin');
  const admin = clientFrom('admin', yaml);
  const names = Array.from({ length: KEYS }, (_, i) => `in-${i}`);
  for (const name of names) must(await admin.apply(configMaps, { metadata: { name, namespace, labels: { role: 'input' } } }, { fieldManager: 'test' }));

  const sentA: number[] = [];
  const appliedA: string[] = [];
  const plainA = clusterFrom('a', yaml);
  const a: Cluster = { ...plainA, client: timedClient(plainA.client, sentA, appliedA) };
  const b = clusterFrom('b', yaml);
  const doneIn = { a: 0, b: 0 };
  let aDoneWhenBFinished: number | undefined;
  const c = controller<ConfigMap>({
    name: randomName('rl'),
    provider: staticProvider([a, b]),
    resource: configMaps,
    select: { namespace, labelSelector: 'role=input' },
    ...(concurrency === undefined ? {} : { queue: { concurrency } }),
    reconcile: (req, ctx) =>
      defer(async () => {
        const client = ctx.fleet.get(req.cluster)?.client;
        if (client === undefined || req.object === undefined) return done();
        // a writes Secrets (so the Secrets in this namespace are a's alone), b ConfigMaps outside the selection.
        if (req.cluster === a.name)
          must(await client.apply(
              secrets,
              {
                metadata: { name: `out-${req.key.name}`, namespace },
                stringData: { from: req.key.name },
              },
              { fieldManager: 'rl' },
            ));
        else
          must(await client.apply(
              configMaps,
              {
                metadata: { name: `out-b-${req.key.name}`, namespace },
                data: { from: req.key.name },
              },
              { fieldManager: 'rl' },
            ));
        return done();
      }),
  });

  const start = performance.now();
  const samples: { atMs: number; requests: number }[] = [];
  const onOutcome = (o: Outcome): void => {
    if (o.result !== 'done') return;
    if (o.cluster === a.name) doneIn.a++;
    else doneIn.b++;
    if (doneIn.b === KEYS) aDoneWhenBFinished ??= doneIn.a;
  };
  const handle = await run(c, {
    logger: quiet,
    signals: false,
    http: false,
    onOutcome,
    clusterRateLimit: (cl: Cluster) => (cl.name === a.name ? { qps: QPS, burst: BURST } : undefined),
  });
  handles.push(handle);

  await eventually(`b's ${KEYS} writes (${doneIn.b} done)`, () => (doneIn.b >= KEYS ? true : undefined), { timeoutMs: 30_000 });
  const bFinishedMs = performance.now() - start;
  await eventually(
    `a's ${KEYS} writes (${doneIn.a} done)`,
    async () => {
      const requests = await secretsWritten(admin, namespace);
      // Read after the answer: the count is the server's at some moment before `atMs`.
      samples.push({ atMs: performance.now() - start, requests });
      return doneIn.a >= KEYS && requests >= KEYS ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  const aFinishedMs = performance.now() - start;

  expect(aDoneWhenBFinished).toBeDefined();
  // The server saw a's Secret writes at most at the bucket's pace, and a applied each exactly once.
  for (const s of samples) expect(s.requests, `${s.requests} Secrets written ${Math.round(s.atMs)} ms in`).toBeLessThanOrEqual(BURST + (QPS * s.atMs) / 1000);
  expect(samples.at(-1)?.requests).toBe(KEYS);
  expect([...appliedA].sort()).toEqual(names.map((n) => `out-${n}`).sort());
  // Every request a sent (list, watch, writes), in any window of time: at most burst + qps × window.
  // 100 ms of slack for timer granularity (a late timer bunches a grant onto the next).
  // The writes and at least the watch's opening request (a streaming list needs no separate list).
  expect(sentA.length).toBeGreaterThanOrEqual(KEYS + 1);
  for (let i = 0; i < sentA.length; i++) {
    for (let j = i; j < sentA.length; j++) {
      const windowMs = (sentA[j] ?? 0) - (sentA[i] ?? 0);
      expect(j - i + 1, `${j - i + 1} requests within ${Math.round(windowMs)} ms`).toBeLessThanOrEqual(BURST + (QPS * (windowMs + 100)) / 1000);
    }
  }
  // Waits are counted per limited cluster; b has none.
  const metrics = await handle.metrics.registry.metrics();
  expect(metrics).not.toContain('rxfleet_client_throttled_requests_total{cluster="b"');
  const aWaits = /rxfleet_client_throttled_requests_total\{cluster="a",result="sent",[^}]*\} (\d+)/.exec(metrics)?.[1];
  const figures = { aDoneWhenBFinished: aDoneWhenBFinished ?? KEYS, bFinishedMs: Math.round(bFinishedMs), aFinishedMs: Math.round(aFinishedMs), aRequestsThatWaited: Number(aWaits ?? 0) };
  if (process.env.RL_FIGURES !== undefined) console.info(JSON.stringify({ concurrency, ...figures, aRequests: sentA.length, samples: samples.length }));
  return figures;
}

describe('clusterRateLimit under run, on kube-apiserver', () => {
  it("should keep a throttled cluster within burst + qps × t while another cluster's writes all finish", async () => {
    const f = await scenario(undefined);
    // b never waited on a: all its writes were done while a still had writes queued.
    expect(f.aDoneWhenBFinished).toBeLessThan(KEYS);
  }, 90_000);

  it("should not let a throttled cluster's keys hold the only worker another cluster needs", async () => {
    // One worker: were a's keys to take it and wait for tokens inside the reconcile, b's keys would
    // alternate with them and finish with a (about 19 of a's 20 done). The queue starts none of
    // a's keys while its bucket is empty, so b's go by.
    const f = await scenario(1);
    expect(f.aDoneWhenBFinished).toBeLessThanOrEqual(KEYS / 2);
  }, 90_000);
});
