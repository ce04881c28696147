// A control-plane child process (etcd, kube-apiserver, kcp): its stdout/stderr go to a log file and
// to an in-memory ring of recent lines (logTail), start failures and time-outs carry that tail, and
// no child outlives the process that started it (SIGKILL on exit, plus the kernel's parent-death
// signal where setpriv exists).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { waitUntilStopped } from './stopped.js';

/**
 * How a server process ended.
 *
 * @example
 * ```ts
 * const info: ExitInfo = { code: null, signal: 'SIGKILL' };
 * ```
 */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * What {@link ServerProcess} runs and where its output goes.
 *
 * @example
 * ```ts
 * const opts: ServerProcessOptions = { name: 'etcd', command: '/usr/local/bin/etcd', args: ['--data-dir=/tmp/etcd'], logFile: '/tmp/etcd.log' };
 * ```
 */
export interface ServerProcessOptions {
  /** Short name used in messages, e.g. "kcp". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Appended to across restarts. */
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Lines kept in memory for logTail (default 500). */
  readonly ringLines?: number;
}

/**
 * Thrown when a server does not come up; the message ends with the server's log tail.
 *
 * @example
 * ```ts
 * // A failed start rejects with a ServerStartError whose message ends with the server's log tail.
 * await startKubeApiserver().catch((err: unknown) => { console.error(String(err)); });
 * ```
 */
export class ServerStartError extends Error {
  /** `ServerStartError`. */
  override readonly name = 'ServerStartError';
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

const SETPRIV = '/usr/bin/setpriv';
const haveSetpriv = process.platform === 'linux' && existsSync(SETPRIV);

/**
 * One server process that can be started again after it stops (same command and log file).
 *
 * @example
 * ```ts
 * const p = new ServerProcess({ name: 'etcd', command: '/usr/local/bin/etcd', args: [], logFile: '/tmp/etcd.log' });
 * p.start();
 * await waitUntil('etcd healthy', () => Promise.resolve(p.running ? true : undefined), { process: p, timeoutMs: 30_000 });
 * await p.terminate();
 * ```
 */
export class ServerProcess {
  readonly name: string;
  readonly logFile: string;
  private readonly opts: ServerProcessOptions;
  private readonly ringSize: number;
  private readonly ring: string[] = [];
  private partial = '';
  private log: WriteStream | undefined;
  private child: ChildProcess | undefined;
  private exited: Promise<ExitInfo> | undefined;
  private lastExit: ExitInfo | undefined;

  constructor(opts: ServerProcessOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.logFile = opts.logFile;
    this.ringSize = opts.ringLines ?? 500;
  }

  /** The process id while running; undefined before start() and once it has exited. */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** True from start() until the process has exited. */
  get running(): boolean {
    return this.child !== undefined && this.lastExit === undefined;
  }

  /** How the last run ended, if it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.lastExit;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.pid})`);
    installExitHook();
    this.log ??= createWriteStream(this.logFile, { flags: 'a' });
    const argv = haveSetpriv
      ? { command: SETPRIV, args: ['--pdeathsig', 'SIGKILL', '--', this.opts.command, ...this.opts.args] }
      : { command: this.opts.command, args: [...this.opts.args] };
    this.record(`=== ${new Date().toISOString()} starting ${this.opts.command} ${this.opts.args.join(' ')}\n`);
    const child = spawn(argv.command, argv.args, {
      cwd: this.opts.cwd,
      env: this.opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.lastExit = undefined;
    live.add(child);
    child.stdout.on('data', (chunk: Buffer) => {
      this.record(chunk.toString('utf8'));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.record(chunk.toString('utf8'));
    });
    this.exited = new Promise<ExitInfo>((resolvePromise) => {
      let settled = false;
      const done = (info: ExitInfo): void => {
        if (settled) return;
        settled = true;
        live.delete(child);
        // Only the current run's exit may mark this process as not running: a late exit of an
        // earlier run must not make the new one look dead (and its controls no-ops).
        if (this.child === child) this.lastExit = info;
        this.record(`=== ${new Date().toISOString()} exited code=${info.code} signal=${info.signal}\n`);
        resolvePromise(info);
      };
      child.once('error', (err) => {
        this.record(`=== spawn error: ${err.message}\n`);
        done({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        done({ code, signal });
      });
    });
  }

  /** The last `lines` lines of output (both streams, interleaved as received). */
  logTail(lines = 40): string {
    const all = this.partial === '' ? this.ring : [...this.ring, this.partial];
    return all.slice(-lines).join('\n');
  }

  /** Resolves when the current run exits (immediately if it already has). */
  async whenExited(): Promise<ExitInfo> {
    if (this.exited === undefined) throw new Error(`${this.name} was never started`);
    return this.exited;
  }

  /** SIGTERM (after SIGCONT, in case it is paused); SIGKILL if still alive after `timeoutMs`. */
  async terminate(timeoutMs = 20_000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    this.record(`=== ${new Date().toISOString()} SIGTERM\n`);
    // Either may race with an exit already under way; the wait below covers both.
    this.trySignal('SIGCONT');
    this.trySignal('SIGTERM');
    const exited = this.whenExited();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolvePromise) => {
      timer = setTimeout(() => {
        resolvePromise('timeout');
      }, timeoutMs);
    });
    const first = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') {
      this.record(`=== did not exit ${timeoutMs} ms after SIGTERM: SIGKILL\n`);
      this.trySignal('SIGKILL');
      await exited;
    }
  }

  /** SIGKILL and wait for the exit. Throws when it is not running: there is nothing to kill. */
  async kill(): Promise<void> {
    const pid = this.send('SIGKILL', 'kill');
    this.record(`=== ${new Date().toISOString()} SIGKILL pid ${pid}\n`);
    await this.whenExited();
  }

  /** SIGKILL if running and wait for the exit; for clean-up paths, where it may have exited already. */
  async killIfRunning(): Promise<void> {
    if (!this.running) return;
    this.record(`=== ${new Date().toISOString()} SIGKILL\n`);
    this.trySignal('SIGKILL');
    await this.whenExited();
  }

  /**
   * SIGSTOP, resolved once every thread of the process has stopped (kill(2) only queues the
   * signal: see stopped.ts); the process keeps its sockets open but answers nothing. Rejects when
   * it is not running, exits meanwhile, or has not stopped within `timeoutMs`.
   */
  async pause(timeoutMs = 10_000): Promise<void> {
    const pid = this.send('SIGSTOP', 'pause');
    const started = Date.now();
    await waitUntilStopped(pid, { timeoutMs, alive: () => this.running && this.child?.pid === pid }).catch((err: unknown) => {
      throw new Error(`${this.name}: pause: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
    this.record(`=== ${new Date().toISOString()} SIGSTOP pid ${pid}: stopped after ${Date.now() - started} ms\n`);
  }

  /** SIGCONT (the kernel wakes every thread before kill(2) returns). Throws when it is not running. */
  resume(): void {
    const pid = this.send('SIGCONT', 'resume');
    this.record(`=== ${new Date().toISOString()} SIGCONT pid ${pid}\n`);
  }

  /** Stops the process if running and closes the log file. */
  async dispose(): Promise<void> {
    await this.terminate();
    const log = this.log;
    this.log = undefined;
    if (log !== undefined) {
      await new Promise<void>((resolvePromise) => {
        log.end(() => {
          resolvePromise();
        });
      });
    }
  }

  /** A start error whose message ends with the log tail. */
  startError(message: string, lines = 60): ServerStartError {
    const exit = this.lastExit === undefined ? '' : ` (exited: code=${this.lastExit.code} signal=${this.lastExit.signal})`;
    return new ServerStartError(
      `${this.name}: ${message}${exit}\n--- last ${lines} lines of ${this.logFile} ---\n${this.logTail(lines)}\n---`,
    );
  }

  /** Sends `sig` to the current run and returns its pid; throws when that signals nothing. */
  private send(sig: NodeJS.Signals, what: string): number {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined || !this.running) {
      const exit = this.lastExit === undefined ? 'never started' : `exited: code=${this.lastExit.code} signal=${this.lastExit.signal}`;
      throw new Error(`${this.name}: cannot ${what} (${sig}): not running (${exit})`);
    }
    // false: the process is gone, its exit not yet reported (ESRCH).
    if (!child.kill(sig)) throw new Error(`${this.name}: cannot ${what} (${sig}): pid ${pid} has exited`);
    return pid;
  }

  /** Sends `sig` if running; for stopping, where an exit racing the signal is what is wanted. */
  private trySignal(sig: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      this.child?.kill(sig);
    } catch {
      // raced with exit
    }
  }

  private record(text: string): void {
    this.log?.write(text);
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.ring.push(line);
    if (this.ring.length > this.ringSize) this.ring.splice(0, this.ring.length - this.ringSize);
  }
}
