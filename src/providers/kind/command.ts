// Running the kind CLI: the only source of truth for which kind clusters exist and how to reach them.
import type { ObservableInput } from 'rxjs';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';

/**
 * Runs `kind` with arguments; `Right` is stdout, `Left` says what failed (with stderr).
 *
 * @example
 * ```ts
 * const run: KindRunner = (args) => Promise.resolve(E.right('east\nwest\n'));
 * ```
 */
export type KindRunner = (args: readonly string[]) => ObservableInput<Either<string, string>>;

/**
 * The real runner: `command args…` with a timeout, never rejecting.
 *
 * @example
 * ```ts
 * await runKind('kind', 30_000)(['get', 'clusters']);
 * ```
 * @param command - the kind executable (found on PATH unless a path).
 * @param timeoutMs - how long one call may run.
 * @returns the runner.
 */
export function runKind(command: string, timeoutMs: number): KindRunner {
  return (args) =>
    new Promise((resolve) => {
      // node:child_process (and the modules it brings: net sockets, dgram) loads at the first
      // command, not with the module: most controllers never run one.
      const { execFile } = process.getBuiltinModule('node:child_process');
      execFile(command, [...args], { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err === null) {
          resolve(E.right(stdout));
          return;
        }
        const how = err.killed ? `timed out after ${timeoutMs} ms` : typeof err.code === 'number' ? `exited with code ${err.code}` : `could not run (${err.code ?? err.message})`;
        const tail = stderr.trim().slice(-1000);
        resolve(E.left(`${command} ${args.join(' ')} ${how}${tail === '' ? '' : `: ${tail}`}`));
      });
    });
}

/**
 * The cluster names in `kind get clusters` output (one per line; kind prints "No kind clusters
 * found." on stderr when there are none, so stdout is empty).
 *
 * @example
 * ```ts
 * parseKindClusters('east\nwest\n'); // ['east', 'west']
 * ```
 * @param stdout - the command's output.
 * @returns the names.
 */
export function parseKindClusters(stdout: string): readonly string[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('No kind clusters'));
}
