// Clusters from kubeconfig files on disk: one per context, named `<path>+<context>`, as
// multicluster-runtime's file provider. Files are watched (fs.watch) and rescanned periodically;
// a context whose server or credentials changed is re-engaged with a new client, a vanished one
// disengaged, and a file that does not load is reported as skipped without stopping the others.
import type { Observable } from 'rxjs';
import { asyncScheduler, BehaviorSubject, catchError, defer, distinctUntilChanged, EMPTY, mergeMap, of, switchMap } from 'rxjs';
import type { Provider } from '../../client/cluster.js';
import type { Desired } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
import { defaultKubeconfigGlobs, defaultKubeconfigPaths, expandPaths } from './paths.js';
import { desiredFromFiles } from './scan.js';
import { dirChanges } from './watch-dirs.js';

export { defaultKubeconfigGlobs, defaultKubeconfigPaths, expandPaths } from './paths.js';
export { desiredFromFiles, fileCandidates } from './scan.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';
export type { Probe } from '../internal/engage.js';

/**
 * Options of {@link file}.
 *
 * @example
 * ```ts
 * const opts: FileOptions = { paths: ['/etc/fleet', '~/clusters/*.yaml'], rescanInterval: 30_000, probe: false };
 * ```
 */
export interface FileOptions extends ContactOptions {
  /** Files, directories (their files matching `globs`) and glob patterns. Default {@link defaultKubeconfigPaths}. */
  readonly paths?: readonly string[];
  /** File-name patterns taken from directories. Default {@link defaultKubeconfigGlobs}. */
  readonly globs?: readonly string[];
  /** Between a file's path and a context's name in cluster names; default `+`. */
  readonly separator?: string;
  /** Periodic rescan (ms), the safety net for missed file-system events; default 10 000. */
  readonly rescanInterval?: number;
  /** Quiet time after file-system events before rescanning (ms); default 200. */
  readonly debounce?: number;
  /** Watch directories with fs.watch; default true (false: rescans only). */
  readonly watch?: boolean;
}

/**
 * A provider of the contexts of kubeconfig files. Each context is a cluster named
 * `<path><separator><context>`, fingerprinted by its resolved cluster and user: a change there
 * (new token, new CA, new server) re-engages it with a new client; changes elsewhere in the file do
 * nothing. By default a cluster must answer `GET /version` before it is engaged; one that does not
 * is reported as `waiting` and retried, never holding back the others.
 *
 * @example
 * ```ts
 * import { file } from 'rxfleet/providers/file';
 * const fleet = createFleet(file({ paths: ['/etc/fleet'], report: (r) => console.log(r) }));
 * ```
 * @param options - paths, patterns, timings, first contact and reporting.
 * @returns the provider.
 */
export function file(options: FileOptions = {}): Provider {
  const cfg = engineConfig('file', options, 'its file or context is gone', true);
  const scheduler = options.scheduler ?? asyncScheduler;
  const separator = options.separator ?? '+';
  const globs = options.globs ?? defaultKubeconfigGlobs;
  return defer(() => {
    const paths = options.paths ?? defaultKubeconfigPaths();
    const dirs = new BehaviorSubject<readonly string[]>([]);
    const kicks: Observable<void> =
      options.watch === false ? EMPTY : dirs.pipe(distinctUntilChanged((a, b) => a.join('\0') === b.join('\0')), switchMap(dirChanges));
    const scan = (): Observable<Desired> =>
      defer(() => {
        const found = expandPaths(paths, globs);
        dirs.next(found.dirs);
        return of(desiredFromFiles(found.files, separator));
      }).pipe(
        catchError((err: unknown) => {
          // A scan that fails as a whole (a directory became unreadable) changes nothing engaged.
          cfg.say({ type: 'error', reason: `scan failed: ${err instanceof Error ? err.message : String(err)}` });
          return EMPTY;
        }),
      );
    return rescanTicks(options.rescanInterval ?? 10_000, scheduler, kicks, options.debounce ?? 200).pipe(
      mergeMap(scan),
      engageCandidates(cfg),
    );
  });
}
