// What the kcp benchmarks measure and how their controller processes report it: memory after
// forced GC, the messages between a parent and bench/kcp-controller.ts, and the parent's handle
// of one controller process (spawned with this process's flags, its stdout/stderr inherited).
import type { Contender } from './peer/measure-run.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/** Memory of a process, MiB: RSS after forced GC, peak RSS (VmHWM), V8 heap. */
export interface Mem {
  readonly rss: number;
  readonly hwm: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
}

/** A controller's figures at one moment (its end). */
export interface Snapshot {
  readonly startedAt: number;
  readonly at: number;
  readonly before: Mem;
  readonly after: Mem;
  readonly cpuSeconds: number;
  readonly connections: number;
  readonly engaged: number;
  readonly reconciled: number;
  /** monitorEventLoopDelay (10 ms resolution) from start to this snapshot, ms. */
  readonly eventLoopDelayMs: { readonly max: number; readonly p99: number; readonly mean: number };
  /** Sharding: how many times the replica was fenced (its Lease not renewed in time). */
  readonly fencings?: number;
}

/** Counts sent while running (at most every 200 ms, when they changed). */
export interface Progress {
  readonly type: 'progress';
  readonly at: number;
  readonly engaged: number;
  readonly reconciled: number;
  /** The replica's state (`sharing 3 confirmed`), empty without replicas. */
  readonly state: string;
}

/** Controller → parent. */
export type ToParent =
  | { readonly type: 'ready'; readonly startedAt: number }
  | { readonly type: 'engaged'; readonly cluster: string; readonly at: number }
  | { readonly type: 'disengaged'; readonly cluster: string; readonly at: number }
  | { readonly type: 'first'; readonly cluster: string; readonly at: number }
  | Progress
  /** Per-workspace messages gathered and sent together (one IPC message per 200 ms, not one per workspace). */
  | { readonly type: 'batch'; readonly messages: readonly ToParent[] }
  | ({ readonly type: 'done' } & Snapshot);

/** Parent → controller: the number of workspaces to wait for, or a request for the final snapshot (then it exits). */
export type ToChild = { readonly type: 'expect'; readonly workspaces: number } | { readonly type: 'snapshot' };

/** Milliseconds since the epoch, sub-millisecond, comparable across processes of one machine. */
export const now = (): number => performance.timeOrigin + performance.now();
/** Bytes → MiB, one decimal. */
export const mib = (bytes: number): number => Number((bytes / 1024 / 1024).toFixed(1));
/** The load average, 1/5/15 min. */
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM). */
export const statusKiB = (pid: number | 'self', key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** This process's memory after two forced GCs (when run with --expose-gc). */
export function mem(): Mem {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { rss: mib(m.rss), hwm: mib(statusKiB('self', 'VmHWM') * 1024), heapUsed: mib(m.heapUsed), heapTotal: mib(m.heapTotal) };
}

/** The q-quantile of `xs`, rounded (NaN when empty). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN);
}

/** A running controller process, seen from its parent. */
export interface ControllerProcess {
  readonly ready: Promise<number>;
  /** Its final snapshot (after `expect` is met, or after `snapshot()` was asked). */
  readonly done: Promise<Snapshot>;
  readonly engagedAt: Map<string, number>;
  readonly firstAt: Map<string, number>;
  /** Its latest progress message. */
  progress(): Progress | undefined;
  expect(n: number): void;
  snapshot(): void;
  /** Waits up to `graceMs` for it to exit on its own (writing its profile), then SIGKILLs it. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts bench/kcp-controller.ts with this process's node flags and `env`.
 *
 * @example
 * ```ts
 * const c = startController({ ...process.env, KCP_EXPECT: '100' });
 * const figures = await c.done;
 * ```
 * @param env - its environment (KCP_PROVIDER_KUBECONFIG, KCP_EXPORT, KCP_GROUP, KCP_PORT, …).
 * @param extraArgs - node flags added for this one (e.g. --cpu-prof).
 * @param wrap - how to start it instead (a memory cgroup's `wrap`: bench/peer/memory-limit.ts).
 * @returns the handle.
 */
export function startController(env: NodeJS.ProcessEnv, extraArgs: readonly string[] = [], wrap: (c: Contender) => Contender = (c) => c): ControllerProcess {
  const file = fileURLToPath(new URL('./kcp-controller.ts', import.meta.url));
  const run = wrap({ label: 'controller', command: process.execPath, args: [...process.execArgv, ...extraArgs, file] });
  const p = spawn(run.command, run.args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const engagedAt = new Map<string, number>();
  const firstAt = new Map<string, number>();
  let latest: Progress | undefined;
  let onReady = (_: number): void => undefined;
  const ready = new Promise<number>((r) => (onReady = r));
  const finished = new Promise<Snapshot>((resolve, reject) => {
    const onMessage = (m: ToParent): void => {
      if (m.type === 'ready') onReady(m.startedAt);
      else if (m.type === 'engaged') engagedAt.set(m.cluster, m.at);
      else if (m.type === 'disengaged') engagedAt.delete(m.cluster);
      else if (m.type === 'first') firstAt.set(m.cluster, m.at);
      else if (m.type === 'progress') latest = m;
      else if (m.type === 'batch') m.messages.forEach(onMessage);
      else resolve(m);
    };
    p.on('message', onMessage);
    p.on('exit', (code) => {
      reject(new Error(`controller exited ${String(code)} before it was done`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    p.on('exit', () => {
      resolve();
    });
  });
  // Handled here too, so that a crash during set-up fails the awaits without an unhandled rejection.
  finished.catch(() => {
    // awaited later
  });
  return {
    ready,
    done: finished,
    engagedAt,
    firstAt,
    progress: () => latest,
    expect: (n) => {
      p.send({ type: 'expect', workspaces: n } satisfies ToChild);
    },
    snapshot: () => {
      p.send({ type: 'snapshot' } satisfies ToChild);
    },
    stop: async (graceMs = 10_000) => {
      if (p.exitCode !== null || p.signalCode !== null) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      p.kill('SIGKILL');
      await exited;
    },
  };
}

/** A snapshot's memory, CPU and counts as the kcp benchmarks print them; per-workspace figures over `n`. */
export function memOf(d: Snapshot, n: number): Record<string, unknown> {
  return {
    rssBeforeMiB: d.before.rss,
    rssAfterMiB: d.after.rss,
    rssPerWorkspaceKiB: Number((((d.after.rss - d.before.rss) * 1024) / n).toFixed(1)),
    vmHwmMiB: d.after.hwm,
    heapUsedBeforeAfterMiB: [d.before.heapUsed, d.after.heapUsed],
    heapTotalBeforeAfterMiB: [d.before.heapTotal, d.after.heapTotal],
    heapPerWorkspaceKiB: Number((((d.after.heapUsed - d.before.heapUsed) * 1024) / n).toFixed(1)),
    cpuSeconds: Number(d.cpuSeconds.toFixed(1)),
    eventLoopDelayMs: { max: Number(d.eventLoopDelayMs.max.toFixed(1)), p99: Number(d.eventLoopDelayMs.p99.toFixed(1)), mean: Number(d.eventLoopDelayMs.mean.toFixed(1)) },
    connections: d.connections,
    engaged: d.engaged,
    reconciled: d.reconciled,
  };
}
