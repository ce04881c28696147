// Running a built example as the user would: `node dist-demo/examples/<name>/main.js ...`, with its
// output captured and its exit awaited. The examples are compiled once per test file.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/binaries.js';
import { assertPackageBuilt } from '../support/replica-build.js';
import type { Running } from '../support/captured.js';
import { captured } from '../support/captured.js';

const exec = promisify(execFile);

/** Compiles examples and demo to dist-demo/ (tsconfig.examples.json), against the built package (dist/). */
export async function buildExamples(): Promise<void> {
  assertPackageBuilt();
  await exec(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repoRoot, 'tsconfig.examples.json')], { cwd: repoRoot }).catch((err: unknown) => {
    const out = typeof err === 'object' && err !== null && 'stdout' in err ? String(err.stdout) : String(err);
    throw new Error(`the examples do not compile against dist/:\n${out.slice(0, 4000)}`, { cause: err });
  });
}

/** Writes kubeconfig text to a private temp file and returns its path. */
export function kubeconfigFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-ex-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, yaml, { mode: 0o600 });
  return path;
}

export type { Running } from '../support/captured.js';

/** Starts `node dist-demo/examples/<example>/main.js ...args`. */
export function startExample(example: string, args: readonly string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [join(repoRoot, 'dist-demo', 'examples', example, 'main.js'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'info', PROBE_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return captured(child);
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
