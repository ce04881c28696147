// Replicas of examples/ha as separate OS processes, as a Deployment runs them: started with
// `node .../examples/ha/main.js` (compiled by replica-build.ts), their JSON log lines parsed as
// they arrive, real signals sent to them (SIGKILL, SIGTERM, SIGSTOP/SIGCONT) with the time of
// each, and bounded waits on their logs. pino stamps every line with Date.now(), the same clock as
// the test's: log times and signal times compare directly.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { waitUntilStopped } from '../../src/envtest/stopped.js';
import { repoRoot } from './binaries.js';
import type { Running } from './captured.js';
import { captured } from './captured.js';
import { eventually } from './wait.js';
import type { ReplicaBuild } from './replica-build.js';

/** One JSON log line of a replica (pino: `time` in ms since the epoch, `level`, `msg`, fields). */
export interface LogLine {
  readonly time: number;
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Lease timings passed to a replica as flags (see examples/ha/cli.ts). */
export interface ReplicaTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** How to start one replica of examples/ha. */
export interface ReplicaSpec {
  readonly identity: string;
  readonly mode: 'leader' | 'shard';
  /** Kubeconfig file of the server (its namespaces are the fleet, its Leases the coordination). */
  readonly kubeconfigPath: string;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  /** Label selector of the namespaces that are clusters (TENANT_SELECTOR). */
  readonly tenantSelector: string;
  /** Absent: the runtime's defaults (15 s / 10 s / 2 s). */
  readonly timing?: ReplicaTiming;
  /** RECONCILE_DELAY_MS: holds each reconcile this long before its write. */
  readonly reconcileDelayMs?: number;
  readonly weight?: number;
  /** LOG_LEVEL (default info). */
  readonly logLevel?: string;
  /** WARM_CACHES: keep the watches of up to this many clusters open while not running them (0: none). */
  readonly warmCaches?: number;
  /** STAMP_OUTPUTS=0 when false: unstamped outputs, watched, so a converged output is not written again. */
  readonly stampOutputs?: boolean;
  /** BURN_MS (test/fixtures/busy only): once leading, block the event loop this long at a time, back to back. */
  readonly burnMs?: number;
}

/** A running replica. */
export interface ReplicaProcess {
  readonly identity: string;
  readonly pid: number | undefined;
  /** Every parsed JSON log line so far (non-JSON output is kept in `output()` only). */
  lines(): readonly LogLine[];
  /** Raw stdout + stderr so far. */
  output(): string;
  /** The last `n` raw lines, for failure messages. */
  tail(n?: number): string;
  /** Sends `sig` and returns the time it was sent (Date.now()). */
  signal(sig: NodeJS.Signals): number;
  /**
   * SIGSTOP, resolved once every thread of the process is stopped (kill(2) only queues the signal:
   * until one thread takes it the others run on), with the time it was sent.
   */
  pause(): Promise<number>;
  /** Resolves with the exit code, or the signal's name when killed by one. */
  readonly exited: Promise<number | string>;
  /** When the exit was seen, if it was. */
  exitedAt(): number | undefined;
  /** SIGCONT (in case it is paused) then SIGTERM; SIGKILL after `ms`. Resolves with the exit. */
  stop(ms?: number): Promise<number | string>;
}

function specArgs(s: ReplicaSpec): string[] {
  const args = ['--cluster', `server=${s.kubeconfigPath}`, '--replicas', s.mode, '--lease-namespace', s.leaseNamespace, '--lease-name', s.leaseName, '--identity', s.identity];
  if (s.timing !== undefined) {
    args.push('--lease-duration-ms', String(s.timing.leaseDurationMs), '--renew-deadline-ms', String(s.timing.renewDeadlineMs), '--retry-period-ms', String(s.timing.retryPeriodMs));
  }
  if (s.weight !== undefined) args.push('--weight', String(s.weight));
  return args;
}

const SETPRIV = '/usr/bin/setpriv';


// `node main.js args`, killed by the kernel if the test process dies first (setpriv's parent-death
// signal, where it exists): a replica left behind would keep its Lease renewed.
function spawnReplica(main: string, args: readonly string[], env: Record<string, string>): Running {
  const argv = [main, ...args];
  const fullEnv = { ...process.env, PROBE_PORT: '0', ...env };
  const child = existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', process.execPath, ...argv], { cwd: repoRoot, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, argv, { cwd: repoRoot, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return captured(child);
}

// Parses complete lines only, from where the last call stopped: the output grows while we read.
function lineReader(r: Running): () => readonly LogLine[] {
  const parsed: LogLine[] = [];
  let offset = 0;
  return () => {
    const out = r.output();
    const end = out.lastIndexOf('\n') + 1;
    if (end > offset) {
      for (const text of out.slice(offset, end).split('\n')) {
        if (!text.startsWith('{')) continue;
        try {
          const v = JSON.parse(text) as Partial<LogLine>;
          if (typeof v.time === 'number' && typeof v.msg === 'string') parsed.push(v as LogLine);
        } catch {
          // a line that is not JSON (a crash trace) stays in output()
        }
      }
      offset = end;
    }
    return parsed;
  };
}

/**
 * Starts one replica of examples/ha (built beforehand with buildExamples()).
 *
 * @example
 * const a = startReplica(build, { identity: 'a', mode: 'leader', kubeconfigPath, leaseNamespace, leaseName: 'ha', tenantSelector });
 * await waitForLog(a, 'leading', (l) => l.msg === 'replica state' && l.type === 'leading', 20_000);
 */
export function startReplica(build: ReplicaBuild, spec: ReplicaSpec): ReplicaProcess {
  const running = spawnReplica(build.main, specArgs(spec), {
    TENANT_SELECTOR: spec.tenantSelector,
    LOG_LEVEL: spec.logLevel ?? 'info',
    ...(spec.reconcileDelayMs === undefined ? {} : { RECONCILE_DELAY_MS: String(spec.reconcileDelayMs) }),
    ...(spec.warmCaches === undefined ? {} : { WARM_CACHES: String(spec.warmCaches) }),
    ...(spec.stampOutputs === false ? { STAMP_OUTPUTS: '0' } : {}),
    ...(spec.burnMs === undefined ? {} : { BURN_MS: String(spec.burnMs) }),
  });
  const lines = lineReader(running);
  let exitedAt: number | undefined;
  const exited = running.exited.then((how) => {
    exitedAt = Date.now();
    return how;
  });
  const signal = (sig: NodeJS.Signals): number => {
    const at = Date.now();
    try {
      running.child.kill(sig);
    } catch {
      // raced with its exit
    }
    return at;
  };
  return {
    identity: spec.identity,
    pid: running.child.pid,
    lines,
    output: () => running.output(),
    tail: (n = 40) => running.output().split('\n').slice(-n).join('\n'),
    signal,
    async pause() {
      const pid = running.child.pid;
      if (pid === undefined || exitedAt !== undefined) throw new Error(`replica ${spec.identity} is not running: nothing to pause`);
      const at = signal('SIGSTOP');
      await waitUntilStopped(pid, { timeoutMs: 10_000, alive: () => exitedAt === undefined });
      return at;
    },
    exited,
    exitedAt: () => exitedAt,
    async stop(ms = 10_000) {
      if (exitedAt !== undefined) return exited;
      signal('SIGCONT');
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), ms);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Waits for the first log line of `r` (from line `from` on) that satisfies `pred`.
 *
 * @example
 * const line = await waitForLog(b, 'b leading', (l) => l.msg === 'replica state' && l.type === 'leading', 10_000);
 */
export function waitForLog(r: ReplicaProcess, what: string, pred: (l: LogLine) => boolean, timeoutMs: number, from = 0): Promise<LogLine> {
  return eventually(`${r.identity}: ${what}`, () => r.lines().slice(from).find(pred), { timeoutMs, context: () => `--- ${r.identity} (last 40 lines) ---\n${r.tail()}` });
}

/** A replica state change as logged (the runtime's ReplicaState, with the line's time). */
export interface StateLine {
  readonly time: number;
  readonly type: string;
  readonly holder?: string;
  readonly view?: string;
  readonly members?: readonly string[];
  readonly owned?: number;
  readonly confirmed?: boolean;
  readonly reason?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The replica state a log line reports, if it reports one: either `msg: 'replica state'` with the
 * state's fields on the line, or the state as a `replica` field (`msg: 'replica <type>'`).
 *
 * @example
 * const leading = (l: LogLine) => stateOf(l)?.type === 'leading';
 */
export function stateOf(l: LogLine): StateLine | undefined {
  const fields = isRecord(l.replica) && typeof l.replica.type === 'string' ? l.replica : l.msg === 'replica state' ? l : undefined;
  if (fields === undefined || typeof fields.type !== 'string') return undefined;
  return { ...fields, time: l.time, type: fields.type };
}

/**
 * The replica state changes a replica logged, in order.
 *
 * @example
 * const last = states(a).at(-1)?.type; // 'leading' | 'standby' | 'sharing' | 'fenced'
 */
export function states(r: ReplicaProcess): readonly StateLine[] {
  return r.lines().flatMap((l) => {
    const s = stateOf(l);
    return s === undefined ? [] : [s];
  });
}

/**
 * The log tails of several replicas, for failure messages.
 *
 * @example
 * await eventually('one leader', probe, { timeoutMs: 20_000, context: () => tails(all) });
 */
export function tails(rs: readonly ReplicaProcess[], n = 30): string {
  return rs.map((r) => `--- ${r.identity} (last ${n} lines) ---\n${r.tail(n)}`).join('\n');
}

/**
 * Stops every replica still running (SIGCONT, SIGTERM, SIGKILL after `ms`), in parallel.
 *
 * @example
 * afterAll(() => stopAll(started));
 */
export async function stopAll(rs: readonly ReplicaProcess[], ms = 5_000): Promise<void> {
  await Promise.all(rs.map((r) => r.stop(ms)));
}

/**
 * The value of a series in a replica's /metrics (its probe server's URL comes from its
 * `controller running` log line), by name and some of its labels (`state="synced"`), whatever the
 * others (`controller`). Undefined before the server is up or when the series is absent.
 *
 * @example
 * const synced = await metricOf(standby, 'rxfleet_replica_warm_clusters', 'state="synced"');
 */
export async function metricOf(r: ReplicaProcess, name: string, ...labels: readonly string[]): Promise<number | undefined> {
  const url = r.lines().find((l) => l.msg === 'controller running' && typeof l.url === 'string')?.url;
  if (typeof url !== 'string') return undefined;
  const lines = (await (await fetch(`${url}/metrics`)).text()).split('\n');
  const line = lines.find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && labels.every((x) => l.includes(x)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
