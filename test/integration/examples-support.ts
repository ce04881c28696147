// Running a built example as the user would: `node dist-demo/examples/<name>/main.js ...`, with its
// output captured and its exit awaited. The examples are compiled once per test file.
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/binaries.js';

const exec = promisify(execFile);

/** Compiles examples and demo to dist-demo/ (tsconfig.examples.json). */
export async function buildExamples(): Promise<void> {
  await exec(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repoRoot, 'tsconfig.examples.json')], { cwd: repoRoot });
}

/** Writes kubeconfig text to a private temp file and returns its path. */
export function kubeconfigFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-ex-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, yaml, { mode: 0o600 });
  return path;
}

export interface Running {
  readonly child: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** Resolves with the exit code (or 128 + signal number style name) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Starts `node dist-demo/examples/<example>/main.js ...args`. */
export function startExample(example: string, args: readonly string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [join(repoRoot, 'dist-demo', 'examples', example, 'main.js'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'info', PROBE_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return { child, output: () => out, exited };
}

/** Sends SIGTERM and waits for the exit (kills it after `ms` so a hung example fails the test, not the run). */
export async function terminate(r: Running, ms = 30_000): Promise<number | string> {
  r.child.kill('SIGTERM');
  const timer = setTimeout(() => r.child.kill('SIGKILL'), ms);
  try {
    return await r.exited;
  } finally {
    clearTimeout(timer);
  }
}
