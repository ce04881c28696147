// Running `node <args>` to completion with its output captured: the CLI tests and the sync agent's
// bad-configuration run use the same runner.
import { spawn } from 'node:child_process';
import { repoRoot } from './binaries.js';

/**
 * What a finished child process said.
 *
 * @example
 * ```ts
 * const r: NodeRun = await runNode(['--version']);
 * ```
 */
export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node ...args` from the repository root (LOG_LEVEL=warn) and waits for it; killed after 60 s.
 *
 * @example
 * ```ts
 * const r = await runNode(['packages/cli/dist/bin.js', '--help']);
 * ```
 * @param args - the arguments after `node`.
 * @param node - the Node binary (default: this one).
 * @returns its exit code and output.
 */
export function runNode(args: readonly string[], node = process.execPath): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
