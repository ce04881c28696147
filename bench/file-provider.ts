// The file provider next to a big kubeconfig: how long the event loop stalls (perf_hooks
// monitorEventLoopDelay) while it watches a ~10 MB file that does not change, and when one context
// of that file changes. Every timer, probe and watch of a controller waits out such a stall.
// Phases: start (the first read and parse, and every context engaged without a probe), steady
// (nothing changes: rescans every BENCH_RESCAN_MS), change (one context's server changes, the file
// is replaced by rename as editors and kubectl write it; until that context is re-engaged, + 0.5 s).
// Run: npm run bench:file-provider  (node --import ./bench/register.ts bench/file-provider.ts)
// Environment: BENCH_BASELINE_S (10), BENCH_MB (10), BENCH_CONTEXTS (1,000), BENCH_FORMAT (yaml | json), BENCH_STEADY_S (60),
// BENCH_RESCAN_MS (10,000, the provider's default), BENCH_CHANGES (5), BENCH_PROVIDER (a module path
// exporting kubeconfigFileProvider; default src/providers/file/index.ts: to measure another version).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { rename, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { dump } from 'js-yaml';
import type { KubeconfigFileProviderOptions, KubeconfigFileSystem } from '../src/providers/file/index.js';
import { nodeKubeconfigFileSystem } from '../src/providers/file/index.js';
import type { FleetEvent, Provider } from '../src/streams/cluster.js';
import { eventually } from '../test/support/wait.js';

const MB = Number(process.env.BENCH_MB ?? 10);
const CONTEXTS = Number(process.env.BENCH_CONTEXTS ?? 1_000);
const FORMAT = process.env.BENCH_FORMAT === 'json' ? 'json' : 'yaml';
const STEADY_S = Number(process.env.BENCH_STEADY_S ?? 60);
const RESCAN_MS = Number(process.env.BENCH_RESCAN_MS ?? 10_000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 5);
const BASELINE_S = Number(process.env.BENCH_BASELINE_S ?? 10);
const PROVIDER = resolve(process.env.BENCH_PROVIDER ?? 'src/providers/file/index.ts');

/** A kubeconfig of CONTEXTS contexts with client certificates, about MB megabytes; context `ctx-<changed>` points at port `port`. */
function kubeconfig(certs: readonly string[], changed = -1, port = 0): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: certs.map((c, i) => ({ name: `c-${i}`, cluster: { server: `https://10.0.${i >> 8}.${i & 255}:${i === changed ? port : 6443}`, 'certificate-authority-data': c } })),
    users: certs.map((c, i) => ({ name: `u-${i}`, user: { 'client-certificate-data': c, 'client-key-data': c } })),
    contexts: certs.map((_, i) => ({ name: `ctx-${i}`, context: { cluster: `c-${i}`, user: `u-${i}` } })),
    'current-context': 'ctx-0',
  };
  return FORMAT === 'json' ? JSON.stringify(doc) : dump(doc, { lineWidth: -1 });
}

const ms = (ns: number): string => (ns / 1e6).toFixed(1);
const loop = (h: ReturnType<typeof monitorEventLoopDelay>): string => `${ms(h.percentile(50))} / ${ms(h.percentile(99))} / ${ms(h.max)}`;

const dir = mkdtempSync(join(tmpdir(), 'rxfleet-bench-file-'));
const file = join(dir, 'fleet.kubeconfig');
const certLength = Math.max(64, Math.floor((MB * 1e6) / CONTEXTS / 3 - 120));
const certs = Array.from({ length: CONTEXTS }, () => randomBytes(Math.ceil((certLength * 3) / 4)).toString('base64').slice(0, certLength));
const put = (text: string): void => {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
};
const initial = kubeconfig(certs);
put(initial);

// Reads and parses, counted (a provider version without the `fileSystem` option ignores it).
const calls = { reads: 0, parses: 0 };
const fileSystem: KubeconfigFileSystem = {
  ...nodeKubeconfigFileSystem,
  read: (p) => {
    calls.reads += 1;
    return nodeKubeconfigFileSystem.read(p);
  },
  parse: (b) => {
    calls.parses += 1;
    return nodeKubeconfigFileSystem.parse(b);
  },
};
const { kubeconfigFileProvider } = (await import(pathToFileURL(PROVIDER).href)) as { kubeconfigFileProvider: (o: KubeconfigFileProviderOptions) => Provider };

// The machine's own noise first: the same histogram on an idle event loop (a loaded machine delays
// every timer, whatever the process does). Event-loop utilisation says how busy the loop itself was.
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
// On a loaded machine the histogram also counts time the process was not scheduled. The main
// thread's own CPU time between two 5 ms ticks is not: its maximum is the longest the provider itself
// held the loop (a synchronous task falls within one tick interval).
let own: number[] = [];
let lastCpu = process.threadCpuUsage();
const sampler = setInterval(() => {
  const now = process.threadCpuUsage();
  own.push((now.user - lastCpu.user + now.system - lastCpu.system) / 1000);
  lastCpu = now;
}, 5);
const ownBusy = (): string => {
  const s = [...own].sort((a, b) => a - b);
  own = [];
  const q = (p: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))] ?? Number.NaN;
  return `${q(0.99).toFixed(1)} / ${(s.at(-1) ?? Number.NaN).toFixed(1)}`;
};
let elu = performance.eventLoopUtilization();
const busy = (): string => {
  const u = performance.eventLoopUtilization(elu);
  elu = performance.eventLoopUtilization();
  return u.utilization.toFixed(3);
};
await sleep(BASELINE_S * 1000);
const baselineLoop = loop(h);
const baselineElu = busy();
const baselineOwn = ownBusy();

const events: FleetEvent[] = [];
const seen = (pred: (ev: FleetEvent) => boolean, from: number): boolean => events.slice(from).some(pred);
h.reset();
const t0 = performance.now();
const sub = kubeconfigFileProvider({ paths: [dir], probe: false, rescanIntervalMs: RESCAN_MS, fileSystem }).subscribe((ev) => events.push(ev));
await eventually('first discovery pass', () => seen((ev) => ev.type === 'report' && ev.report.type === 'discovered', 0), { timeoutMs: 300_000, intervalMs: 5 });
const startMs = performance.now() - t0;
const startLoop = loop(h);
const startElu = busy();
const startOwn = ownBusy();
const engagedAtStart = events.filter((ev) => ev.type === 'engaged').length;
console.log(
  `file-provider benchmark: ${(initial.length / 1e6).toFixed(1)} MB ${FORMAT} kubeconfig, ${CONTEXTS} contexts, rescan every ${RESCAN_MS} ms, ` +
    `${PROVIDER.replace(`${process.cwd()}/`, '')}, node ${process.version}`,
);
console.log(`  start: ${engagedAtStart} clusters engaged in ${startMs.toFixed(0)} ms`);

const readsBefore = calls.reads;
const parsesBefore = calls.parses;
h.reset();
await sleep(STEADY_S * 1000);
const steadyLoop = loop(h);
const steadyElu = busy();
const steadyOwn = ownBusy();
const steadyReads = calls.reads - readsBefore;
const steadyParses = calls.parses - parsesBefore;
console.log(`  steady: ${STEADY_S} s done`);

// The new versions are made before measuring (js-yaml's dump of 10 MB takes seconds) and written
// asynchronously, so that the figures are the provider's and not the bench's.
const changes = Array.from({ length: CHANGES }, (_, k) => ({ target: (k * 97) % CONTEXTS, text: kubeconfig(certs, (k * 97) % CONTEXTS, 7000 + k) }));
const changeRows: string[] = [];
for (const [k, { target, text }] of changes.entries()) {
  await sleep(1000);
  const at = events.length;
  h.reset();
  busy();
  ownBusy();
  const t = performance.now();
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
  await eventually(`ctx-${target} re-engaged`, () => seen((ev) => ev.type === 'report' && ev.report.type === 'reengaged' && ev.report.cluster === `ctx-${target}`, at), { timeoutMs: 120_000, intervalMs: 5 });
  const took = performance.now() - t;
  await sleep(500);
  const moved = events.slice(at).filter((ev) => ev.type === 'engaged' || ev.type === 'disengaged').length;
  changeRows.push(`| ${k + 1} | ${took.toFixed(0)} | ${moved} | ${loop(h)} | ${ownBusy()} | ${busy()} |`);
}
sub.unsubscribe();
clearInterval(sampler);
h.disable();
rmSync(dir, { recursive: true, force: true });

console.log('\nEvent-loop delay and main-thread CPU (ms):\n');
console.log('| phase | event-loop delay p50 / p99 / max | main-thread CPU per 5 ms tick p99 / max | loop utilisation | notes |');
console.log('| --- | ---: | ---: | ---: | --- |');
console.log(`| baseline, ${BASELINE_S} s, no provider | ${baselineLoop} | ${baselineOwn} | ${baselineElu} | the machine's noise |`);
console.log(`| start (read, parse, ${engagedAtStart} clusters engaged) | ${startLoop} | ${startOwn} | ${startElu} | ${startMs.toFixed(0)} ms to the first discovery pass |`);
console.log(`| steady, ${STEADY_S} s, file unchanged | ${steadyLoop} | ${steadyOwn} | ${steadyElu} | ${steadyReads} reads, ${steadyParses} parses (counted only by a provider with \`fileSystem\`) |`);
console.log('\nOne context changed (the file replaced by rename):\n');
console.log('| change | write → re-engaged (ms) | engage/disengage events | event-loop delay p50 / p99 / max (ms) | main-thread CPU per tick p99 / max (ms) | loop utilisation |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of changeRows) console.log(r);
process.exit(0);
