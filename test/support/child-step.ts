// One step of a user's shell session, for the tests that work on the packed packages: a child
// process on this Node (npm, the packages' bins and tsc all run on it), its output kept for the
// failure message, bounded in time.
import { spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';

/** The environment of every step: this Node first on PATH, no colours, CI mode. */
export const stepEnv: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', CI: '1' };

/**
 * Runs one step; returns its output, or throws with the command and the output's tail.
 *
 * @example
 * step('npm pack', 'npm', ['pack', '--silent'], repoRoot);
 */
export function step(what: string, command: string, args: readonly string[], cwd: string, timeoutMs = 300_000): string {
  const res = spawnSync(command, args, { cwd, env: stepEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs });
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) {
    throw new Error(`${what} failed (${command} ${args.join(' ')}; exit ${res.status} ${res.signal ?? ''}${res.error === undefined ? '' : `; ${res.error.message}`}):\n${out.slice(-4000)}`);
  }
  return out;
}
