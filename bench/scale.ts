// Scale benchmark: the README's controller (a reply per input ConfigMap, server-side applied into
// the same cluster) on the namespaces provider over one private kube-apiserver, N namespace-clusters
// of BENCH_OBJECTS (10) input ConfigMaps each, for each N of BENCH_CLUSTERS (10,100,1000,2000).
// Each N runs in a fresh child process (this file again, SCALE_CHILD=1) so that its RSS, CPU and
// event-loop figures are its own: start → every output written (convergence), start → first
// output, CPU (utime+stime) until convergence, RSS growth per cluster, event-loop delay max/p99
// (monitorEventLoopDelay, 10 ms resolution), the longest own main-thread task (CPU between 5 ms
// ticks, which the machine's load cannot inflate) and TCP connections to the server.
// BENCH_WATCHES=shared,own (default shared): `own` gives each namespace-cluster its own watch
// (shareWatches: false: N watches, paced per server), `shared` one cluster-wide watch split by namespace;
// BENCH_CPU_PROF=<dir> runs each child under `node --cpu-prof` into that directory.
// Run: npm run bench:scale  (node --expose-gc --import ./bench/register.ts bench/scale.ts)
import { execFileSync, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tap } from 'rxjs';
import { createClusterClient } from '../src/client/index.js';
import { clusterName, configMaps, controller, done, isLeft, isRight, namespaces, run, toAction } from '../src/index.js';
import { namespaceProvider } from '../src/providers/namespaces/index.js';
import { apply } from '../src/sinks/index.js';
import { connectionsTo } from '../test/support/connections.js';
import { pool } from '../test/support/pool.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10);
const INPUT = 'bench.rxfleet.dev/input';
const CLUSTER = 'bench.rxfleet.dev/cluster';

interface ChildResult {
  readonly n: number;
  readonly watches: string;
  readonly convergenceMs: number;
  readonly firstOutputMs: number;
  readonly cpuMs: number;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  readonly heapAfterMiB: number;
  readonly heapTotalMiB: number;
  readonly externalMiB: number;
  readonly loopMaxMs: number;
  readonly loopP99Ms: number;
  readonly ownTaskMaxMs: number;
  readonly connections: number;
  readonly load: string;
}

const mib = (bytes: number): number => bytes / 1024 / 1024;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function child(): Promise<void> {
  const n = Number(process.env.SCALE_N);
  const port = Number(process.env.SCALE_PORT);
  const made = createClusterClient(clusterName('hub'), { file: process.env.SCALE_KUBECONFIG ?? '' });
  if (isLeft(made)) throw new Error(made.left.message);
  const hub = { name: clusterName('hub'), client: made.right };
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const total = n * OBJECTS;
  let written = 0;
  let firstAt = 0;
  // Resolved by the last write itself: a polling wait would spend the CPU it measures.
  let converged = (): void => undefined;
  const allWritten = new Promise<void>((resolve) => (converged = resolve));
  const c = controller({
    name: 'scale',
    provider: namespaceProvider({ management: hub, labelSelector: `${CLUSTER}=y`, shareWatches: process.env.SCALE_WATCHES !== 'own' }),
    resource: configMaps,
    select: { labelSelector: `${INPUT}=y` },
    reconcile: (req, ctx) => {
      if (req.object === undefined) return done();
      const reply = { metadata: { name: `out-${req.key.name}`, namespace: req.key.namespace }, data: { reply: `hello from ${req.cluster}` } };
      return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: reply }).pipe(
        tap((r) => {
          if (!isRight(r)) return;
          if (written++ === 0) firstAt = performance.now();
          if (written === total) converged();
        }),
        toAction(),
      );
    },
  });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let ownMax = 0;
  let lastCpu = process.threadCpuUsage();
  const ticker = setInterval(() => {
    const now = process.threadCpuUsage();
    ownMax = Math.max(ownMax, (now.user - lastCpu.user + now.system - lastCpu.system) / 1000);
    lastCpu = now;
  }, 5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  loop.enable();
  const handle = await run(c, { http: false, signals: false });
  const deadline = setTimeout(() => {
    console.error(`N=${n}: only ${written} of ${total} outputs written after 15 min`);
    process.exit(1);
  }, 900_000);
  await allWritten;
  clearTimeout(deadline);
  const convergenceMs = performance.now() - t0;
  loop.disable();
  clearInterval(ticker);
  const cpu = process.cpuUsage(cpu0);
  const connections = connectionsTo(port);
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  global.gc?.();
  const mem = process.memoryUsage();
  const result: ChildResult = {
    n,
    watches: process.env.SCALE_WATCHES ?? 'shared',
    convergenceMs,
    firstOutputMs: firstAt - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBeforeMiB: mib(rssBefore),
    rssAfterMiB: mib(mem.rss),
    heapAfterMiB: mib(mem.heapUsed),
    heapTotalMiB: mib(mem.heapTotal),
    externalMiB: mib(mem.external),
    loopMaxMs: loop.max / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    ownTaskMaxMs: ownMax,
    connections,
    load: load(),
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
  await handle.stop({ deadlineMs: 5_000 });
  process.exit(0);
}

async function parent(): Promise<void> {
  const { startKubeApiserver } = await import('../test/support/kube-apiserver.js');
  const sizes = (process.env.BENCH_CLUSTERS ?? '10,100,1000,2000')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
  const max = Math.max(...sizes);
  const kas = await startKubeApiserver();
  try {
    const made = createClusterClient(clusterName('setup'), { file: kas.kubeconfigPath('admin') });
    if (isLeft(made)) throw new Error(made.left.message);
    const client = made.right;
    // The server holds exactly the clusters of the run: sizes ascending, each adds its namespaces (a
    // shared watch decodes every input of the server, engaged or not).
    let present = 0;
    const grow = async (n: number): Promise<void> => {
      const setupAt = Date.now();
      const names = Array.from({ length: n - present }, (_, i) => `scale-${String(present + i).padStart(4, '0')}`);
      await pool(names, 16, async (name) => {
        const r = await client.apply(namespaces, { metadata: { name, labels: { [CLUSTER]: 'y' } } }, { fieldManager: 'bench' });
        if (isLeft(r)) throw new Error(r.left.message);
      });
      const inputs = names.flatMap((ns) => Array.from({ length: OBJECTS }, (_, k) => ({ ns, name: `in-${k}` })));
      await pool(inputs, 16, async ({ ns, name }) => {
        const data = { value: 'x'.repeat(200) };
        const r = await client.apply(configMaps, { metadata: { name, namespace: ns, labels: { [INPUT]: 'y' } }, data }, { fieldManager: 'bench' });
        if (isLeft(r)) throw new Error(r.left.message);
      });
      present = n;
      console.error(`set-up: ${n} namespaces × ${OBJECTS} ConfigMaps (+${names.length} in ${((Date.now() - setupAt) / 1000).toFixed(1)} s)`);
    };
    const port = kas.ports.secure;
    const results: ChildResult[] = [];
    const modes = (process.env.BENCH_WATCHES ?? 'shared').split(',');
    for (const n of sizes) {
      await grow(n);
      for (const watches of modes) {
        const prof = process.env.BENCH_CPU_PROF;
        const profArgs = prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${prof}`, `--cpu-prof-name=scale-${n}-${watches}.cpuprofile`];
        const out = await new Promise<string>((resolve, reject) => {
          const p = spawn(process.execPath, [...profArgs, '--expose-gc', '--import', './bench/register.ts', 'bench/scale.ts'], {
            env: { ...process.env, SCALE_CHILD: '1', SCALE_N: String(n), SCALE_WATCHES: watches, SCALE_PORT: String(port), SCALE_KUBECONFIG: kas.kubeconfigPath('admin'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let text = '';
          p.stdout.on('data', (d: Buffer) => {
            text += d.toString();
          });
          p.on('exit', (code) => {
            if (code === 0) resolve(text);
            else reject(new Error(`N=${n} ${watches}: child exited ${String(code)}\n${text}`));
          });
        });
        const line = out.split('\n').find((l) => l.startsWith('RESULT '));
        if (line === undefined) throw new Error(`N=${n} ${watches}: no result\n${out}`);
        const r = JSON.parse(line.slice(7)) as ChildResult;
        results.push(r);
        console.error(`N=${n} ${watches} done: ${JSON.stringify(r)}`);
      }
    }
    // Every output of the largest run holds its reply (a fast wrong answer cannot win).
    const listed = await client.listAll(configMaps, { namespace: '' });
    if (isLeft(listed)) throw new Error(listed.left.message);
    const outs = listed.right.items.filter((o) => o.metadata.name?.startsWith('out-') === true && o.data?.reply === `hello from ${o.metadata.namespace ?? ''}`);
    if (outs.length !== max * OBJECTS) throw new Error(`expected ${max * OBJECTS} correct outputs, found ${outs.length}`);
    const s = (ms: number): string => (ms / 1000).toFixed(1);
    console.log(`\nscale: namespaces provider, ${OBJECTS} ConfigMaps per cluster, one kube-apiserver; node ${process.version}; ${execFileSync('nproc').toString().trim()} cores\n`);
    console.log('| N | watches | convergence (s) | first output (s) | CPU (s) | RSS per cluster (MiB) | RSS slope (MiB/cluster) | heap used / total / external (MiB) | event-loop delay max / p99 (ms) | longest own task (ms) | connections | load (1/5/15 min) |');
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    results.forEach((r) => {
      const prev = results.filter((q) => q.watches === r.watches && q.n < r.n).at(-1);
      const slope = prev === undefined ? '—' : ((r.rssAfterMiB - prev.rssAfterMiB) / (r.n - prev.n)).toFixed(3);
      const per = ((r.rssAfterMiB - r.rssBeforeMiB) / r.n).toFixed(3);
      console.log(
        `| ${r.n} | ${r.watches} | ${s(r.convergenceMs)} | ${s(r.firstOutputMs)} | ${s(r.cpuMs)} | ${per} | ${slope} | ${r.heapAfterMiB.toFixed(1)} / ${r.heapTotalMiB.toFixed(1)} / ${r.externalMiB.toFixed(1)} | ${r.loopMaxMs.toFixed(0)} / ${r.loopP99Ms.toFixed(0)} | ${r.ownTaskMaxMs.toFixed(0)} | ${r.connections} | ${r.load} |`,
      );
    });
  } finally {
    await kas.stop();
  }
}

if (process.env.SCALE_CHILD === '1') await child();
else await parent();
