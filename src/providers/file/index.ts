/**
 * Clusters from kubeconfig files on disk: one per context, named after the context (what a person
 * types with kubectl --context), as multicluster-runtime's file provider discovers them. Files are
 * watched (fs.watch) and rescanned periodically; a context whose server or credentials changed is
 * re-engaged with a new client, a vanished one disengaged. A path that gives no kubeconfig and a file
 * that does not load are reported (in the provider's stream) without stopping the others.
 *
 * @packageDocumentation
 * @module rxfleet/providers/file
 */
import type { Observable } from 'rxjs';
import { BehaviorSubject, catchError, defer, distinctUntilChanged, EMPTY, mergeMap, of, switchMap } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { Provider } from '../../streams/cluster.js';
import type { Desired } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
import { reportProblems, reporting } from '../internal/report.js';
import { defaultKubeconfigGlobs, defaultKubeconfigPaths, expandPaths } from './paths.js';
import { scanKubeconfigFiles } from './scan.js';
import { dirChanges } from './watch-dirs.js';

export { defaultKubeconfigGlobs, defaultKubeconfigPaths } from './paths.js';
export { labelsExtension } from './labels.js';

/**
 * Options of {@link kubeconfigFileProvider}.
 *
 * @example
 * ```ts
 * const opts: KubeconfigFileProviderOptions = { paths: ['/etc/fleet', '~/clusters/*.yaml'], rescanIntervalMs: 30_000, probe: false, labels: { east: { region: 'eu' } } };
 * ```
 */
export interface KubeconfigFileProviderOptions extends ContactOptions {
  /** Files, directories (their files matching `globs`) and glob patterns. Default {@link defaultKubeconfigPaths}. */
  readonly paths?: readonly string[];
  /** File-name patterns taken from directories. Default {@link defaultKubeconfigGlobs}. */
  readonly globs?: readonly string[];
  /** Between a file's short name and a context's name when a context name is in several files; default `+`. */
  readonly separator?: string;
  /** Labels by cluster name, over those of the context's `rxfleet.dev/labels` extension. */
  readonly labels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Periodic rescan, the safety net for missed file-system events; default 10 000. */
  readonly rescanIntervalMs?: number;
  /** Quiet time after file-system events before rescanning; default 200. */
  readonly debounceMs?: number;
  /** Watch directories with fs.watch; default true (false: rescans only). */
  readonly watchDirectories?: boolean;
}

/**
 * A provider of the contexts of kubeconfig files.
 *
 * Names: a cluster is named after its context (`east`), never after a path. When several files
 * define the same context name, each of those clusters is named `<file><separator><context>`, the
 * file being its base name (`east.yaml+east`), or as many trailing path segments as tell it apart
 * (`b/config+east`), and the ambiguity is reported as an `error`.
 *
 * Each cluster's identity is `context "<context>" of kubeconfig <file>`, its labels those of the
 * context's `rxfleet.dev/labels` extension overlaid with `options.labels[name]`. A context is
 * fingerprinted by its resolved cluster and user: a change there (new token, new CA, new server)
 * re-engages it with a new client; a label change re-engages it too; changes elsewhere in the file
 * do nothing. By default a cluster must answer `GET /version` before it is engaged; one that does
 * not is reported as `waiting` and retried, never holding back the others.
 *
 * Misconfiguration is reported, once while it lasts: a path that does not exist or gives no file, a
 * file that cannot be read, is empty or does not parse (`skipped`, `candidate` is the path), labels
 * for a cluster no context is named (`error`). Options that can never work throw a `ConfigError`.
 *
 * @example
 * ```ts
 * import { kubeconfigFileProvider } from 'rxfleet/providers/file';
 * const fleet = createFleet(kubeconfigFileProvider({ paths: ['/etc/fleet'] }));
 * fleet.reports.subscribe((r) => console.log(r.type, 'reason' in r ? r.reason : ''));
 * ```
 * @param options - paths, patterns, labels, timings and first contact.
 * @returns the provider.
 * @throws ConfigError when `paths` is empty, `separator` is empty or a duration is not positive.
 */
export function kubeconfigFileProvider(options: KubeconfigFileProviderOptions = {}): Provider {
  const cfg = engineConfig('file', options, 'its file or context is gone', true);
  const rescanMs = durationOption('file', 'rescanIntervalMs', options.rescanIntervalMs, 10_000);
  const debounceMs = durationOption('file', 'debounceMs', options.debounceMs, 200, true);
  if (options.paths?.length === 0) throw new ConfigError('file provider: `paths` is empty; give kubeconfig files, directories or patterns, or leave it out for $KUBECONFIG or ~/.kube/config');
  const separator = options.separator ?? '+';
  if (separator === '') throw new ConfigError('file provider: `separator` must not be empty (it separates a file from a context in a name)');
  const globs = options.globs ?? defaultKubeconfigGlobs;
  const scanOptions = options.labels === undefined ? { separator } : { separator, labels: options.labels };
  return reporting(cfg, (say) => {
    const paths = options.paths ?? defaultKubeconfigPaths();
    const problems = reportProblems(say);
    const dirs = new BehaviorSubject<readonly string[]>([]);
    const kicks: Observable<void> =
      options.watchDirectories === false ? EMPTY : dirs.pipe(distinctUntilChanged((a, b) => a.join('\0') === b.join('\0')), switchMap(dirChanges));
    const scan = (): Observable<Desired> =>
      defer(() => {
        const found = expandPaths(paths, globs);
        dirs.next(found.dirs);
        const scanned = scanKubeconfigFiles(found.files, scanOptions);
        problems([...found.unmatched.map((u) => ({ type: 'skipped' as const, candidate: u.path, reason: u.reason })), ...scanned.problems]);
        return of(scanned.desired);
      }).pipe(
        catchError((err: unknown) => {
          // A scan that fails as a whole changes nothing engaged.
          problems([{ type: 'error', reason: `scan of ${paths.join(', ')} failed: ${err instanceof Error ? err.message : String(err)}` }]);
          return EMPTY;
        }),
      );
    return rescanTicks(rescanMs, cfg.scheduler, kicks, debounceMs).pipe(mergeMap(scan), engageCandidates(cfg, say));
  });
}
