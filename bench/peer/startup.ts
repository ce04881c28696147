// Start-up of the peer controller alone (issue 26 item 4): what bench:peer's "RSS after import and
// set-up" and "start → first write" rows measure, without its waves, so that a change to the start
// can be measured in a few minutes with enough starts for a median.
//
//   node --import ./bench/register.ts bench/peer/startup.ts rss    # no server: the bundle, `file <empty dir>`
//   node --import ./bench/register.ts bench/peer/startup.ts kcp    # a private kcp: MCR and the bundle alternated
//
// `rss`: the bundle as bench:peer's column runs it (the scaffold's image environment, its compile
// cache, serving /metrics on BENCH_METRICS_PORT), VmHWM read when it logs "controller running";
// with an empty kubeconfig folder it then finds no cluster and exits 2. BENCH_STARTS (7) starts
// per variant, alternated: the bundle, and each of BENCH_BUNDLE_FLAGS (as bench:peer reads it).
// `kcp`: BENCH_WORKSPACES (20) × BENCH_OBJECTS (100) as bench:peer sets them up; BENCH_STARTS (5)
// starts of each controller, alternated, each timed from spawn to the first output the driver's
// own watches see, then stopped and its outputs deleted. With BENCH_TRACE=1 every start prints
// its timeline: rxfleet's log lines and HTTP/2 streams (bench/peer/start-trace.ts), MCR's HTTP/2
// requests and answers (Go's GODEBUG=http2debug=1), each at the time the driver read it. With
// BENCH_CONVERGE=1 each start also runs until every output exists, and reports its CPU per object
// (utime + stime ÷ W × N) and peak RSS then: what a start-up flag costs afterwards.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { reservePorts } from '../../src/envtest/ports.js';
import { startKcp } from '../../test/support/kcp.js';
import { eventually } from '../../test/support/wait.js';
import { bundleController, imageEnv, warmCompileCache } from './bundle-controller.js';
import { compileController } from './compile-controller.js';
import { setupFleet } from './fleet-setup.js';
import { openKube } from './kube.js';
import { ensureMcrBinary } from './mcr-binary.js';
import { deleteOutputs, stopChild } from './measure-run.js';
import type { FleetState } from './measure-run.js';
import { trackOutputs } from './outputs.js';
import { procStats } from './proc-stats.js';
import { peakAtLine } from './setup-rss.js';
import { startTimeline } from './start-timeline.js';
import { writeStartTrace } from './start-trace.js';

const MODE = process.argv[2] ?? 'rss';
const STARTS = Number(process.env.BENCH_STARTS ?? (MODE === 'rss' ? 7 : 5));
const W = Number(process.env.BENCH_WORKSPACES ?? 20);
const N = Number(process.env.BENCH_OBJECTS ?? 100);
const TRACE = process.env.BENCH_TRACE === '1';
const CONVERGE = process.env.BENCH_CONVERGE === '1';
const VARIANTS = (process.env.BENCH_BUNDLE_FLAGS ?? '').split(';').map((f) => f.trim()).filter((f) => f !== '');
const ENV_WORD = /^[A-Z_][A-Z0-9_]*=/;
const HERE = dirname(fileURLToPath(import.meta.url));
const READY = /"msg":"controller running"/;

const say = (s: string): void => {
  process.stderr.write(`bench:startup: ${s}\n`);
};
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};
const summary = (xs: readonly number[], digits: number): string => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}, n = ${xs.length})`;

/** A way to start a controller: command, arguments and environment added to the driver's. */
interface Start {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** `flags` (as BENCH_BUNDLE_FLAGS words) applied to `base`: `NAME=value` words are environment, the others Node flags. */
function variant(base: Start, flags: string): Start {
  const words = flags.split(' ').filter((w) => w !== '');
  const env = Object.fromEntries(words.filter((w) => ENV_WORD.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { label: `bundle ${flags}`, command: base.command, args: [...words.filter((w) => !ENV_WORD.test(w)), ...base.args], env: { ...base.env, ...env } };
}

const dir = mkdtempSync(join(tmpdir(), 'rxfleet-startup-'));
say(`work directory ${dir}`);
const compiled = compileController(join(HERE, 'rxfleet-controller.ts'), dir);
const bundle = await bundleController(compiled, dir);
const metricsPort = String((await reservePorts(1)).ports[0] ?? 0);
const image = { BENCH_METRICS_PORT: metricsPort, ...imageEnv(), ...warmCompileCache(bundle, dir) };

if (MODE === 'rss') {
  const empty = join(dir, 'no-kubeconfigs');
  mkdirSync(empty);
  const base: Start = { label: 'bundle', command: process.execPath, args: [bundle, 'file', empty], env: image };
  const starts = [base, ...VARIANTS.map((f) => variant(base, f))];
  const figures = new Map<string, number[]>(starts.map((s) => [s.label, []]));
  for (let i = 0; i < STARTS; i++) {
    for (const s of i % 2 === 0 ? starts : [...starts].reverse()) {
      const child = spawn(s.command, s.args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...s.env } });
      if (child.pid === undefined) throw new Error(`could not start ${s.command}`);
      const rss = peakAtLine(child.stderr, child.pid, READY);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      if (code !== 2 || Number.isNaN(rss())) throw new Error(`${s.label}: exit ${String(code)}, set-up RSS ${rss()}: expected "controller running", then exit 2 (no cluster)`);
      figures.get(s.label)?.push(rss());
    }
  }
  console.log(`\nRSS after import and set-up (VmHWM at "controller running", MiB), ${STARTS} starts each, alternated; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  for (const [label, xs] of figures) console.log(`| ${label} | ${summary(xs, 1)} |`);
} else if (MODE === 'kcp') {
  const mcrBin = await ensureMcrBinary();
  const kcp = await startKcp();
  try {
    const kube = await openKube(kcp.adminKubeconfigPath);
    const fleet = await setupFleet(kube, kcp.adminKubeconfigPath, dir, { workspaces: W, objects: N, prefix: `start-${randomBytes(2).toString('hex')}` });
    const outputs = trackOutputs(kube, fleet.workspaces);
    const st: FleetState = { fleet, kube, shardAdmin: kube, outputs, gens: new Map(), nextGen: 1, timeoutMs: 300_000, logDir: dir, serverPort: kcp.ports.secure };
    const trace = TRACE ? ['--import', writeStartTrace(dir)] : [];
    const rxfleet: Start = { label: 'rxfleet (bundle)', command: process.execPath, args: [...trace, bundle, 'file', fleet.kubeconfigDir], env: image };
    const mcr: Start = { label: 'MCR', command: mcrBin, args: ['-kubeconfig-dir', fleet.kubeconfigDir, '-local-kubeconfig', fleet.rootKubeconfig, '-qps', '-1'], env: TRACE ? { GODEBUG: 'http2debug=1' } : {} };
    const starts = [mcr, rxfleet, ...VARIANTS.map((f) => variant(rxfleet, f))];
    const firstWrite = new Map<string, number[]>(starts.map((s) => [s.label, []]));
    const setupRss = new Map<string, number[]>();
    const cpuPerObject = new Map<string, number[]>();
    const peakRss = new Map<string, number[]>();
    for (let i = 0; i < STARTS; i++) {
      for (const s of i % 2 === 0 ? starts : [mcr, ...starts.slice(1).reverse()]) {
        outputs.resetFirst();
        const t0 = performance.now();
        const child = spawn(s.command, s.args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...s.env } });
        if (child.pid === undefined) throw new Error(`could not start ${s.command}`);
        const timeline = TRACE ? startTimeline(child.stderr, t0) : undefined;
        const rss = peakAtLine(child.stderr, child.pid, s === mcr ? undefined : READY);
        if (!TRACE) child.stderr.resume();
        await eventually(`${s.label}: first write`, () => outputs.firstCreatedAt() !== undefined, { timeoutMs: 60_000, intervalMs: 2 });
        const ms = (outputs.firstCreatedAt() ?? NaN) - t0;
        firstWrite.get(s.label)?.push(ms);
        if (!Number.isNaN(rss())) setupRss.set(s.label, [...(setupRss.get(s.label) ?? []), rss()]);
        if (CONVERGE) {
          await eventually(`${s.label}: every output`, () => outputs.count() === W * N, { timeoutMs: 300_000, intervalMs: 20 });
          const stats = procStats(child.pid);
          cpuPerObject.set(s.label, [...(cpuPerObject.get(s.label) ?? []), stats.cpuMs / (W * N)]);
          peakRss.set(s.label, [...(peakRss.get(s.label) ?? []), stats.peakRssBytes / 2 ** 20]);
        }
        await stopChild(child);
        // Each start's figures as it ends: a session cut short (a loaded machine) keeps what it measured.
        const converged = CONVERGE ? `, CPU per object ${(cpuPerObject.get(s.label)?.at(-1) ?? NaN).toFixed(3)} ms, peak RSS ${(peakRss.get(s.label)?.at(-1) ?? NaN).toFixed(1)} MiB` : '';
        say(`${s.label} start ${i + 1}: first write ${ms.toFixed(0)} ms, set-up RSS ${rss().toFixed(1)} MiB${converged}, load1 ${(loadavg()[0] ?? NaN).toFixed(1)}`);
        if (timeline !== undefined) console.log(`\n${s.label}, start ${i + 1} (ms from spawn; CPU ms where the process reports it):\n${timeline.lines(ms).join('\n')}`);
        await deleteOutputs(st);
      }
    }
    outputs.stop();
    kube.close();
    console.log(`\nW = ${W} × ${N}, ${STARTS} starts each, alternated; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}${TRACE ? ' (traced: each process also logs its requests)' : ''}\n`);
    const cell = (m: Map<string, number[]>, label: string, digits: number): string => (m.has(label) ? summary(m.get(label) ?? [], digits) : '–');
    console.log('| controller | start → first write (ms) | set-up RSS (MiB) | CPU per object to converge (ms) | peak RSS to converge (MiB) |\n|---|---|---|---|---|');
    for (const [label, xs] of firstWrite) console.log(`| ${label} | ${summary(xs, 0)} | ${cell(setupRss, label, 1)} | ${cell(cpuPerObject, label, 3)} | ${cell(peakRss, label, 1)} |`);
  } finally {
    await kcp.stop();
  }
} else {
  throw new Error(`bench:startup: mode ${MODE}: expected rss or kcp`);
}
