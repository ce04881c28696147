// One measured run of one controller: start it with no outputs present, time the initial
// convergence and the first write, send an update wave, time single updates on the idle
// controller, read its peak RSS, CPU and connections to the server, check every output, stop it,
// start it again over the converged outputs until it has gone through every key, stop it, delete
// the outputs. The server counts the applies it sent in each phase.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { pool } from '../../test/support/pool.js';
import { eventually } from '../../test/support/wait.js';
import { checkOutputs } from './check-outputs.js';
import type { BenchFleet } from './fleet-setup.js';
import { INPUT_LABEL, inputBody, inputName } from './fleet-setup.js';
import type { Kube } from './kube.js';
import { must } from './kube.js';
import type { OutputTracker } from './outputs.js';
import { procStats, serverConnections } from './proc-stats.js';
import { peakAtLine } from './setup-rss.js';
import { appliesSoFar } from './write-count.js';

/** A controller under test: how to start it. */
export interface Contender {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  /** A line of its output that marks the end of its import and set-up (for `setupRssMiB`). */
  readonly readyLine?: RegExp;
  /** Environment added to the driver's. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Whether a restarted controller has gone through all `keys` (e.g. read from its metrics).
   * Without it, the restart is done once the server has counted `keys` applies since.
   */
  readonly idle?: (keys: number) => Promise<boolean>;
}

/** What one run measured. */
export interface RunFigures {
  readonly label: string;
  readonly convergenceMs: number;
  readonly firstWriteMs: number;
  readonly waveThroughputPerS: number;
  readonly waveP50Ms: number;
  readonly waveP99Ms: number;
  /** Wave latency p50 and p99 of the workspace the driver updated first, and of the one it updated last (how a queue orders clusters). */
  readonly waveFirstWorkspaceP50Ms: number;
  readonly waveFirstWorkspaceP99Ms: number;
  readonly waveLastWorkspaceP50Ms: number;
  readonly waveLastWorkspaceP99Ms: number;
  readonly peakRssMiB: number;
  /** VmHWM when `readyLine` appeared: import and set-up (NaN without one). */
  readonly setupRssMiB: number;
  readonly cpuMsPerObject: number;
  readonly idleP50Ms: number;
  /** Established TCP connections to the server when the run ends (the transport in use). */
  readonly connections: number;
  /** Applies the server counted in each phase: initial convergence, update wave, idle updates, and a restart over the converged outputs. */
  readonly appliesInitial: number;
  readonly appliesWave: number;
  readonly appliesIdle: number;
  readonly appliesRestart: number;
}

const IDLE_SAMPLES = 10;
const WAVE_CONCURRENCY = 16;

/** The driver's state across runs: which gen each input is at. */
export interface FleetState {
  readonly fleet: BenchFleet;
  readonly kube: Kube;
  /** kcp's shard admin (system:masters): the one allowed to read the server's /metrics. */
  readonly shardAdmin: Kube;
  readonly outputs: OutputTracker;
  /** `<workspace>/<input>` → the gen its data carries now. */
  readonly gens: Map<string, number>;
  nextGen: number;
  readonly timeoutMs: number;
  readonly logDir: string;
  /** The server's port (kcp's), to count each controller's connections to it. */
  readonly serverPort: number;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

function allKeys(st: FleetState): { ws: string; cmPath: string; i: number; key: string }[] {
  return st.fleet.workspaces.flatMap((ws) => Array.from({ length: st.fleet.objectsPerWorkspace }, (_, i) => ({ ws: ws.name, cmPath: ws.cmPath, i, key: `${ws.name}/${inputName(i)}` })));
}

function converged(st: FleetState, keys: readonly { key: string }[]): boolean {
  const err = st.outputs.failure();
  if (err !== undefined) throw err;
  return keys.every(({ key }) => st.outputs.get(key)?.gen === String(st.gens.get(key) ?? 0));
}

async function update(st: FleetState, k: { cmPath: string; i: number; key: string }, gen: number): Promise<number> {
  const sentAt = performance.now();
  // As for the deletes: a 5xx of a loaded kcp is asked again; latency counts from the first send.
  await eventually(`update ${k.key}`, async () => {
    const res = await st.kube.request('PUT', `${k.cmPath}/${inputName(k.i)}`, inputBody(k.i, gen));
    if (![429, 500, 503, 504].includes(res.status)) must(res, `update ${k.key}`, 200);
    return res.status === 200;
  }, { timeoutMs: st.timeoutMs, intervalMs: 200 });
  st.gens.set(k.key, gen);
  return sentAt;
}

/** Stops `child` with SIGTERM (SIGKILL after 15 s) and waits for its exit. @example await stopChild(child); */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => { r(); }));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Runs `c` once against the fleet and measures it; leaves the fleet with no outputs.
 *
 * @example
 * const figures = await measureRun(state, { label: 'MCR', command: bin, args: [...] }, 1);
 */
export async function measureRun(st: FleetState, c: Contender, runIndex: number): Promise<RunFigures> {
  const keys = allKeys(st);
  const total = keys.length;
  const wait = (what: string, probe: () => boolean | Promise<boolean>): Promise<true> => eventually(`${c.label}: ${what}`, probe, { timeoutMs: st.timeoutMs, intervalMs: 5 });
  st.outputs.resetFirst();
  const log = createWriteStream(`${st.logDir}/run-${runIndex}-${c.label.replace(/\W+/g, '_')}.log`);
  let exitedEarly: string | undefined;
  const start = (): { child: ChildProcess; pid: number; stderr: Readable } => {
    const started = spawn(c.command, c.args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...c.env } });
    started.stdout.pipe(log, { end: false });
    started.stderr.pipe(log, { end: false });
    if (started.pid === undefined) throw new Error(`${c.label}: could not start ${c.command}`);
    started.once('exit', (code, signal) => {
      exitedEarly = `${c.label} exited (${signal ?? `code ${code ?? '?'}`}) during its run; see ${st.logDir}`;
    });
    return { child: started, pid: started.pid, stderr: started.stderr };
  };
  const applies0 = await appliesSoFar(st.shardAdmin);
  const t0 = performance.now();
  const first = start();
  let { child, pid } = first;
  const setupRss = peakAtLine(first.stderr, pid, c.readyLine);
  const alive = <R extends boolean | Promise<boolean>>(probe: () => R) => (): R => {
    if (exitedEarly !== undefined) throw new Error(exitedEarly);
    return probe();
  };
  try {
    await wait('initial convergence', alive(() => converged(st, keys)));
    const lastArrival = Math.max(...keys.map(({ key }) => st.outputs.get(key)?.at ?? NaN));
    const first = st.outputs.firstCreatedAt() ?? NaN;
    const applies1 = await appliesSoFar(st.shardAdmin);

    // The update wave: every input once, as fast as the driver can send them.
    const gen = st.nextGen++;
    const sent = new Map<string, number>();
    const waveStart = performance.now();
    await pool(keys, WAVE_CONCURRENCY, async (k) => {
      sent.set(k.key, await update(st, k, gen));
    });
    await wait('update wave', alive(() => converged(st, keys)));
    const latencies = keys.map(({ key }) => (st.outputs.get(key)?.at ?? NaN) - (sent.get(key) ?? NaN));
    const waveEnd = Math.max(...keys.map(({ key }) => st.outputs.get(key)?.at ?? NaN));
    const applies2 = await appliesSoFar(st.shardAdmin);

    // Idle latency: one update at a time on a quiet controller.
    await new Promise((r) => setTimeout(r, 1_000));
    const idle: number[] = [];
    for (let s = 0; s < IDLE_SAMPLES; s++) {
      const k = keys[(s * 7919) % total];
      if (k === undefined) break;
      const g = st.nextGen++;
      const sentAt = await update(st, k, g);
      await wait('idle update', alive(() => st.outputs.get(k.key)?.gen === String(g)));
      idle.push((st.outputs.get(k.key)?.at ?? NaN) - sentAt);
      await new Promise((r) => setTimeout(r, 200));
    }
    const stats = procStats(pid);
    const connections = serverConnections(pid, st.serverPort);
    const problems = await checkOutputs(st.kube, st.fleet);
    if (problems.length > 0) throw new Error(`${c.label}: ${problems.length} wrong outputs, e.g. ${problems.slice(0, 3).join('; ')}`);
    const applies3 = await appliesSoFar(st.shardAdmin);

    // A restart over the converged outputs (a new leader, a redeploy): what does it send?
    exitedEarly = undefined;
    await stopChild(child);
    exitedEarly = undefined;
    ({ child, pid } = start());
    const restartDone = c.idle;
    await wait('the restart to go through every key', alive(async () => (restartDone === undefined ? (await appliesSoFar(st.shardAdmin)) - applies3 >= total : restartDone(total))));
    const applies4 = await appliesSoFar(st.shardAdmin);
    // The wave is sent workspace after workspace (keys are in that order).
    const firstWs = latencies.filter((_, i) => keys[i]?.ws === keys[0]?.ws);
    const lastWs = latencies.filter((_, i) => keys[i]?.ws === keys[total - 1]?.ws);
    const figures: RunFigures = {
      label: c.label,
      convergenceMs: lastArrival - t0,
      firstWriteMs: first - t0,
      waveThroughputPerS: total / ((waveEnd - waveStart) / 1000),
      waveP50Ms: quantile(latencies, 0.5),
      waveP99Ms: quantile(latencies, 0.99),
      waveFirstWorkspaceP50Ms: quantile(firstWs, 0.5),
      waveFirstWorkspaceP99Ms: quantile(firstWs, 0.99),
      waveLastWorkspaceP50Ms: quantile(lastWs, 0.5),
      waveLastWorkspaceP99Ms: quantile(lastWs, 0.99),
      peakRssMiB: stats.peakRssBytes / 2 ** 20,
      setupRssMiB: setupRss(),
      cpuMsPerObject: stats.cpuMs / (2 * total + idle.length),
      idleP50Ms: quantile(idle, 0.5),
      connections,
      appliesInitial: applies1 - applies0,
      appliesWave: applies2 - applies1,
      appliesIdle: applies3 - applies2,
      appliesRestart: applies4 - applies3,
    };
    try {
      await cleanUp(st, child, log);
    } catch (err) {
      // The next run needs a clean fleet, so the session ends here; what this run measured is kept.
      throw new Error(`${c.label}: measured ${JSON.stringify(figures)}, then could not clean up: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return figures;
  } catch (err) {
    // Cleaning up after a failed run must not hide why it failed.
    await stopChild(child);
    log.end();
    await deleteOutputs(st).catch((cleanup: unknown) => {
      process.stderr.write(`bench:peer: after the failed run, ${cleanup instanceof Error ? cleanup.message : String(cleanup)}\n`);
    });
    throw err;
  }
}

async function cleanUp(st: FleetState, child: ChildProcess, log: { end(): void }): Promise<void> {
  await stopChild(child);
  log.end();
  await deleteOutputs(st);
}

/** Deletes every output in the fleet and waits until the driver's watches have seen them go. @example await deleteOutputs(st); */
export async function deleteOutputs(st: FleetState): Promise<void> {
  await pool(st.fleet.workspaces, 4, async (ws) => {
    const q = `labelSelector=${encodeURIComponent(`!${INPUT_LABEL}`)}&fieldSelector=${encodeURIComponent('metadata.name!=kube-root-ca.crt')}`;
    // kcp under load may answer 5xx (etcd timed out) while the delete still lands: asked again.
    await eventually(`delete outputs in ${ws.name}`, async () => {
      const res = await st.kube.request('DELETE', `${ws.cmPath}?${q}`);
      if (![429, 500, 503, 504].includes(res.status)) must(res, `delete outputs in ${ws.name}`, 200);
      return res.status === 200;
    }, { timeoutMs: st.timeoutMs, intervalMs: 500 });
  });
  await eventually('every output deleted', () => st.outputs.count() === 0, { timeoutMs: st.timeoutMs, intervalMs: 20 });
}
