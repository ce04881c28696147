// Waiting until a process that was sent SIGSTOP has really stopped. kill(2) returns once the
// signal is queued: the kernel wakes ONE thread to take it, and only when that thread runs does it
// stop the others. Until then the other threads of a multi-threaded server (kcp, kube-apiserver,
// etcd: Go) keep running and keep answering; on a loaded machine that lasts long enough to serve a
// request sent right after the signal (measured: 4 of 100 GETs answered, the stop taking up to
// 33 ms). So a pause is only done when every thread reports the stopped state.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The run states of a process's threads, one letter each as `ps`/`/proc` give them (`T` stopped,
 * `S` sleeping, `R` running, ...); empty when the process is gone.
 *
 * @example
 * ```ts
 * const states = await threadStates(pid); // e.g. 'TTTTTTTT' once paused
 * ```
 */
export async function threadStates(pid: number): Promise<string> {
  if (existsSync('/proc/self/task')) return linuxThreadStates(pid);
  return new Promise((resolvePromise) => {
    // No /proc (macOS, BSD): the process's state from ps; no answer means it is gone.
    execFile('ps', ['-o', 'stat=', '-p', String(pid)], { timeout: 5_000 }, (err, stdout) => {
      resolvePromise(err === null ? stdout.trim().slice(0, 1) : '');
    });
  });
}

function linuxThreadStates(pid: number): string {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return '';
  }
  let states = '';
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // "tid (comm) S ...": the command may hold spaces and parentheses, the state follows the last ')'.
      states += stat.charAt(stat.lastIndexOf(')') + 2);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return states;
}

/** Every thread stopped (`T`, or `t` by a tracer) or finished (`Z`, `X`), and at least one stopped. */
const STOPPED = /^[TtZX]*[Tt][TtZX]*$/;

/**
 * What {@link waitUntilStopped} waits for and how long.
 *
 * @example
 * ```ts
 * const opts: WaitStoppedOptions = { timeoutMs: 10_000, alive: () => proc.running };
 * ```
 */
export interface WaitStoppedOptions {
  /** Fail after this long (the stop normally completes within milliseconds). */
  readonly timeoutMs: number;
  /** False once the process has exited: the wait then fails at once. */
  readonly alive: () => boolean;
}

/**
 * Resolves once every thread of `pid` is stopped (after a SIGSTOP sent to it); rejects when the
 * process exits or is still running after `timeoutMs`, naming the threads' states.
 *
 * @example
 * ```ts
 * process.kill(pid, 'SIGSTOP');
 * await waitUntilStopped(pid, { timeoutMs: 10_000, alive: () => true });
 * ```
 */
export async function waitUntilStopped(pid: number, opts: WaitStoppedOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (!opts.alive()) throw new Error(`pid ${pid} exited while waiting for it to stop`);
    const states = await threadStates(pid);
    if (states === '') throw new Error(`pid ${pid} is gone while waiting for it to stop`);
    if (STOPPED.test(states)) return;
    if (Date.now() >= deadline) {
      throw new Error(`pid ${pid} did not stop within ${opts.timeoutMs} ms of SIGSTOP (thread states: ${states})`);
    }
    await sleep(1);
  }
}
