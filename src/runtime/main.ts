// The whole life of a controller process in one call: run it, stop on a signal, exit with a code
// that says how it ended. What an example's or a Deployment's entry point calls.
import type { KubeObject } from '../core/object.js';
import type { Controller } from './controller.js';
import { ConfigError } from '../core/config-error.js';
import { scrubSecrets } from '../core/scrub.js';
import { exitCodes } from './errors.js';
import type { RunOptions, RunResult } from './run.js';
import { run } from './run.js';
import { declarationCapture } from './declarations.js';
import { runControllers } from './run-group.js';

/**
 * One controller, or several sharing one provider.
 *
 * @example
 * ```ts
 * const both: Controllers<KubeObject> = [publisher, sync];
 * ```
 */
export type Controllers<T extends KubeObject> = Controller<T> | readonly Controller<KubeObject>[];

/**
 * Runs a controller as the process's main program: starts it, stops gracefully on SIGTERM/SIGINT,
 * and sets `process.exitCode` from the result (0 clean, 1 deadline cut work, 2 configuration
 * error, 3 failure). A {@link ConfigError} (thrown while building the controller, or a probe port
 * in use) is printed to stderr as one line saying what to fix. If some handle (a user's timer)
 * still holds the process 5 s after the end, it exits anyway. While `rxfleet rbac` loads the
 * program, `main` hands the controller (and its `replicas`) over instead and runs nothing.
 *
 * @example
 * ```ts
 * import { controller, main } from 'rxfleet';
 * void main(() => controller({ name: 'hello', provider, resource: configMaps, reconcile: () => done() }));
 * ```
 * Several controllers sharing one provider run as one process (see {@link run}): `main([a, b])`.
 *
 * @param make - the controller (or a list of them), or a function building it (so its ConfigErrors are reported too).
 * @param options - as for {@link run}.
 * @returns the result, once everything is released.
 */
export async function main<T extends KubeObject>(make: Controllers<T> | (() => Controllers<T>), options: RunOptions = {}): Promise<RunResult> {
  let result: RunResult;
  try {
    const c = typeof make === 'function' ? make() : make;
    // `rxfleet rbac` loading this program: hand the declaration over, run nothing.
    const capture = declarationCapture();
    if (capture !== undefined) {
      for (const one of runControllers(c)) capture({ controller: one, ...(options.replicas === undefined ? {} : { replicas: options.replicas }) });
      return Object.freeze({ reason: 'clean', code: exitCodes.clean, message: 'declared for rxfleet rbac; not run', aborted: 0 });
    }
    const handle = await run(c, options);
    result = await handle.done;
    // A configuration that failed once running (an empty first discovery pass) is said like one thrown.
    if (result.reason === 'config') process.stderr.write(`configuration error: ${scrubSecrets(result.message)}\n`);
  } catch (err) {
    const config = err instanceof ConfigError;
    // The program's own error may carry anything (a URL with its password, a token): not onto stderr.
    const message = scrubSecrets(err instanceof Error ? err.message : String(err));
    process.stderr.write(`${config ? 'configuration error' : 'failed'}: ${message}\n`);
    result = Object.freeze({ reason: config ? 'config' : 'failed', code: config ? exitCodes.config : exitCodes.failed, message, aborted: 0 });
  }
  process.exitCode = result.code;
  setTimeout(() => {
    process.exit(result.code);
  }, 5_000).unref();
  return result;
}
