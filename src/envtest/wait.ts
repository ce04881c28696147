// Waiting for a server to answer, and the fault controls of a server handle.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from './process.js';
import { ServerStartError } from './process.js';

/**
 * How long {@link waitUntil} waits, and for which process.
 *
 * @example
 * ```ts
 * const opts: WaitOptions = { timeoutMs: 60_000, intervalMs: 500 };
 * ```
 */
export interface WaitOptions {
  readonly timeoutMs: number;
  /** Between probes (default 250 ms); 0 probes again on the next turn of the event loop. */
  readonly intervalMs?: number;
  /** Fail at once, with its log tail, if this process exits while waiting. */
  readonly process?: ServerProcess;
  /**
   * Told what is awaited when the wait starts and then every `progressEveryMs` (default 5 s),
   * with the time spent and the last probe error, so a person watching knows what is slow.
   */
  readonly onProgress?: (line: string) => void;
  readonly progressEveryMs?: number;
}

/**
 * Polls `probe` until it returns a value other than undefined. A probe that throws counts as
 * "not yet"; its last error is reported on time-out, with the process's log tail.
 *
 * @example
 * ```ts
 * await waitUntil('the file', () => Promise.resolve(existsSync('/tmp/ready') ? true : undefined), { timeoutMs: 120_000 });
 * ```
 */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, opts: WaitOptions): Promise<T> {
  const started = Date.now();
  const deadline = started + opts.timeoutMs;
  const interval = opts.intervalMs ?? 250;
  const every = opts.progressEveryMs ?? 5_000;
  let nextProgress = started + every;
  let lastError = '';
  opts.onProgress?.(`waiting for ${what}...`);
  for (;;) {
    if (opts.process !== undefined && !opts.process.running) {
      throw opts.process.startError(`exited while waiting for ${what}${lastError === '' ? '' : `; last probe: ${lastError}`}`);
    }
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = '';
    } catch (err: unknown) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() >= deadline) {
      const detail = `timed out after ${opts.timeoutMs} ms waiting for ${what}${lastError === '' ? '' : `; last probe: ${lastError}`}`;
      if (opts.process !== undefined) throw opts.process.startError(detail);
      throw new ServerStartError(detail);
    }
    if (opts.onProgress !== undefined && Date.now() >= nextProgress) {
      nextProgress += every;
      const why = lastError === '' ? '' : ` (last answer: ${lastError.split('\n')[0]?.slice(0, 120) ?? ''})`;
      opts.onProgress(`still waiting for ${what}: ${Math.round((Date.now() - started) / 1000)}s${why}`);
    }
    await (interval === 0 ? nextTurn() : sleep(interval));
  }
}

/**
 * The fault controls every server handle exposes, bound to one process.
 *
 * @example
 * ```ts
 * const kas = await startKubeApiserver();
 * await kas.pause(); // half-open: it holds its sockets and answers nothing
 * kas.resume();
 * ```
 */
export interface ProcessControls {
  /** SIGKILL and wait for the exit. Rejects when the server is not running. */
  kill(): Promise<void>;
  /**
   * SIGSTOP, resolved once the process has stopped: from then on it holds its sockets but answers
   * nothing (a half-open server). Rejects when the server is not running or does not stop.
   */
  pause(): Promise<void>;
  /** SIGCONT. Throws when the server is not running. */
  resume(): void;
  /** The last `lines` (default 40) lines of the server's output. */
  logTail(lines?: number): string;
}

/**
 * kill/pause/resume/logTail of one server process, so every handle offers the same fault controls.
 *
 * @example
 * ```ts
 * const controls = processControls(new ServerProcess({ name: 'etcd', command: 'etcd', args: [], logFile: '/tmp/etcd.log' }));
 * ```
 */
export function processControls(proc: ServerProcess): ProcessControls {
  return {
    kill: () => proc.kill(),
    pause: () => proc.pause(),
    resume: () => {
      proc.resume();
    },
    logTail: (lines?: number) => proc.logTail(lines),
  };
}
