// A control-plane child process (etcd, kube-apiserver, kcp): its stdout/stderr go to a log file and
// to an in-memory ring of recent lines (logTail), start failures and time-outs carry that tail, and
// no child outlives the process that started it (SIGKILL on exit, plus the kernel's parent-death
// signal where setpriv exists).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import type { WriteStream } from 'node:fs';

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

  get pid(): number | undefined {
    return this.child?.pid;
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
        this.lastExit = info;
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
    this.signal('SIGCONT');
    this.signal('SIGTERM');
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
      this.signal('SIGKILL');
      await exited;
    }
  }

  /** SIGKILL and wait for the exit. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.record(`=== ${new Date().toISOString()} SIGKILL\n`);
    this.signal('SIGKILL');
    await this.whenExited();
  }

  /** SIGSTOP: the process keeps its sockets open but stops answering. */
  pause(): void {
    this.signal('SIGSTOP');
  }

  /** SIGCONT. */
  resume(): void {
    this.signal('SIGCONT');
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

  private signal(sig: NodeJS.Signals): void {
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
