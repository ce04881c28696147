// The fault controls of envtest's server process on a real child (`sleep`, no control plane
// needed): pause() resolves only once the process has stopped, and every control fails loudly
// when there is nothing to signal instead of doing nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ServerProcess } from '../../src/envtest/process.js';
import { threadStates, waitUntilStopped } from '../../src/envtest/stopped.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function sleeper(): ServerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-process-test-'));
  const proc = new ServerProcess({ name: 'sleeper', command: 'sleep', args: ['60'], logFile: join(dir, 'sleeper.log') });
  cleanups.push(async () => {
    await proc.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return proc;
}

describe('waitUntilStopped', () => {
  test('resolves once the process is stopped, rejects while it runs, and when it is gone', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const pid = child.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    try {
      await expect(waitUntilStopped(pid, { timeoutMs: 50, alive: () => true })).rejects.toThrow(/did not stop within 50 ms of SIGSTOP \(thread states: S/);
      child.kill('SIGSTOP');
      await waitUntilStopped(pid, { timeoutMs: 10_000, alive: () => true });
      expect(await threadStates(pid)).toMatch(/^[Tt]+$/);
      await expect(waitUntilStopped(pid, { timeoutMs: 10_000, alive: () => false })).rejects.toThrow(/exited while waiting/);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(await threadStates(pid)).toBe('');
    await expect(waitUntilStopped(pid, { timeoutMs: 10_000, alive: () => true })).rejects.toThrow(/is gone/);
  });
});

describe('ServerProcess fault controls', () => {
  test('pause() resolves with every thread stopped; resume() continues it', async () => {
    const proc = sleeper();
    proc.start();
    const pid = proc.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    await proc.pause();
    expect(await threadStates(pid)).toMatch(/^[Tt]+$/);
    proc.resume();
    expect(await threadStates(pid)).not.toMatch(/[Tt]/);
    expect(proc.logTail()).toMatch(new RegExp(`SIGSTOP pid ${pid}: stopped after \\d+ ms`));
  });

  test('kill(), pause() and resume() throw when nothing runs, before start and after the exit', async () => {
    const proc = sleeper();
    await expect(proc.pause()).rejects.toThrow('sleeper: cannot pause (SIGSTOP): not running (never started)');
    expect(() => {
      proc.resume();
    }).toThrow('sleeper: cannot resume (SIGCONT): not running (never started)');
    await expect(proc.kill()).rejects.toThrow('sleeper: cannot kill (SIGKILL): not running (never started)');

    proc.start();
    await proc.kill();
    expect(proc.running).toBe(false);
    expect(proc.pid).toBeUndefined();
    await expect(proc.pause()).rejects.toThrow('sleeper: cannot pause (SIGSTOP): not running (exited: code=null signal=SIGKILL)');
    expect(() => {
      proc.resume();
    }).toThrow(/not running \(exited/);
    await expect(proc.kill()).rejects.toThrow(/not running \(exited/);
    // Clean-up paths stay quiet: stopping what already stopped is not an error.
    await proc.killIfRunning();
    await proc.terminate();
  });

  test('a restarted process is not marked exited by the previous run', async () => {
    const proc = sleeper();
    proc.start();
    await proc.terminate();
    proc.start();
    expect(proc.running).toBe(true);
    await proc.pause();
    proc.resume();
    await proc.kill();
    expect(proc.exitInfo).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
