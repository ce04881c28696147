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
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import type { Observable } from 'rxjs';
import { BehaviorSubject, catchError, concatMap, defer, distinctUntilChanged, EMPTY, filter, from, map, mergeMap, of, switchMap, toArray } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { Provider } from '../../streams/cluster.js';
import type { Desired } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
import { reportProblems, reporting } from '../internal/report.js';
import type { FileLook } from './file-cache.js';
import { kubeconfigFileCache } from './file-cache.js';
import type { KubeconfigFileSystem } from './file-system.js';
import { nodeKubeconfigFileSystem } from './file-system.js';
import { defaultKubeconfigGlobs, defaultKubeconfigPaths, expandPaths } from './paths.js';
import type { FileScan } from './scan.js';
import { nameCandidates } from './scan.js';
import type { FileWatchMode } from './watch-dirs.js';
import { dirChanges } from './watch-dirs.js';

export { defaultKubeconfigGlobs, defaultKubeconfigPaths } from './paths.js';
export { labelsExtension } from './labels.js';
export type { FileStamp, KubeconfigFileSystem } from './file-system.js';
export { nodeKubeconfigFileSystem } from './file-system.js';
export type { DirectoryWatcher, FileWatchMode, WatchDirectory } from './watch-dirs.js';
export { workerParseBytes } from './parse-document.js';

/** Files read at once in a scan: enough to hide latency, few enough to keep memory and descriptors bounded. */
const readConcurrency = 8;

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
  /**
   * How changes are noticed between rescans: `events` (default: fs.watch on the files' directories,
   * polling a directory that cannot be watched, which is reported), `poll` (a stat of every file
   * every `pollIntervalMs`: for NFS, SMB and other file systems where fs.watch is silent), `off`.
   */
  readonly watch?: FileWatchMode;
  /** Between polls in `poll` mode and for directories that cannot be watched; default 2 000. A poll reads no file that did not change. */
  readonly pollIntervalMs?: number;
  /** `false` is `watch: 'off'` (kept from earlier versions). */
  readonly watchDirectories?: boolean;
  /** The file-system calls (default {@link nodeKubeconfigFileSystem}, with fs.watch); tests inject their own. */
  readonly fileSystem?: KubeconfigFileSystem;
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
 * do nothing. A cluster keeps its credentials once, as its context's parsed entries, frozen: its
 * clients are built from them and parse no copy of their own, and no other cluster shares them.
 * By default a cluster must answer `GET /version` before it is engaged; one that does not is
 * reported as `waiting` and retried, never holding back the others.
 *
 * Files are read asynchronously and only when they changed: a rescan stats each file and reads one
 * whose inode, size or times changed; a file whose content hash is the same is not parsed again; a
 * file from {@link workerParseBytes} up is parsed in a worker thread. A rescan of unchanged files
 * emits nothing. Replacing a file by rename (editors, `kubectl`, a Kubernetes Secret or ConfigMap
 * volume swapping its `..data` link) is a change like any other.
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
 * @throws ConfigError when `paths` is empty, `separator` is empty, `watch` is unknown or a duration is not positive.
 */
export function kubeconfigFileProvider(options: KubeconfigFileProviderOptions = {}): Provider {
  const cfg = engineConfig('file', options, 'its file or context is gone', true);
  const rescanMs = durationOption('file', 'rescanIntervalMs', options.rescanIntervalMs, 10_000);
  const debounceMs = durationOption('file', 'debounceMs', options.debounceMs, 200, true);
  const pollIntervalMs = durationOption('file', 'pollIntervalMs', options.pollIntervalMs, 2_000);
  if (options.paths?.length === 0) throw new ConfigError('file provider: `paths` is empty; give kubeconfig files, directories or patterns, or leave it out for $KUBECONFIG or ~/.kube/config');
  const separator = options.separator ?? '+';
  if (separator === '') throw new ConfigError('file provider: `separator` must not be empty (it separates a file from a context in a name)');
  const mode: FileWatchMode = options.watchDirectories === false ? 'off' : (options.watch ?? 'events');
  // Checked at run time too: a JavaScript caller or a config file can pass anything.
  if (!(['events', 'poll', 'off'] as readonly string[]).includes(mode)) throw new ConfigError(`file provider: \`watch\` must be 'events', 'poll' or 'off', got ${JSON.stringify(mode)}`);
  const globs = options.globs ?? defaultKubeconfigGlobs;
  const scanOptions = options.labels === undefined ? { separator } : { separator, labels: options.labels };
  const fs = options.fileSystem ?? nodeKubeconfigFileSystem;
  return reporting(cfg, (say) => {
    const paths = options.paths ?? defaultKubeconfigPaths();
    const problems = reportProblems(say);
    const cache = kubeconfigFileCache(fs, fs.now, cfg.scheduler);
    const dirs = new BehaviorSubject<readonly string[]>([]);
    const watchOptions = { mode, pollIntervalMs, scheduler: cfg.scheduler, fellBack: (_dir: string, reason: string) => { say({ type: 'error', reason }); }, ...(fs.watch === undefined ? {} : { watch: fs.watch }) };
    const kicks = dirs.pipe(
      distinctUntilChanged((a, b) => a.join('\0') === b.join('\0')),
      switchMap((d) => dirChanges(d, watchOptions)),
    );
    // What the last scan saw, file by file: when every file holds the same as then, nothing is emitted.
    let last: { readonly looks: readonly (readonly [string, FileLook])[]; readonly scan: FileScan } | undefined;
    const unchanged = (looks: readonly (readonly [string, FileLook])[]): boolean => {
      const before = last?.looks;
      return before?.length === looks.length && looks.every(([f, l], i) => before[i]?.[0] === f && before[i][1] === l);
    };
    const scan = (): Observable<Desired> =>
      defer(() => {
        const found = expandPaths(paths, globs);
        dirs.next(found.dirs);
        cache.retain(found.files);
        const order = new Map(found.files.map((f, i) => [f, i]));
        return from(found.files).pipe(
          mergeMap((f) => cache.look(f).pipe(map((look) => [f, look] as const)), readConcurrency),
          toArray(),
          mergeMap((looks) => {
            looks.sort((a, b) => (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
            const same = unchanged(looks);
            const scanned = same && last !== undefined ? last.scan : nameCandidates(looks, scanOptions);
            problems([...found.unmatched.map((u) => ({ type: 'skipped' as const, candidate: u.path, reason: u.reason })), ...scanned.problems]);
            if (same) return EMPTY;
            last = { looks, scan: scanned };
            return of(scanned.desired);
          }),
        );
      }).pipe(
        catchError((err: unknown) => {
          // A scan that fails as a whole changes nothing engaged.
          problems([{ type: 'error', reason: `scan of ${paths.join(', ')} failed: ${err instanceof Error ? err.message : String(err)}` }]);
          return EMPTY;
        }),
      );
    // One scan at a time, and at most one waiting: ticks during a scan are folded into the next one.
    let queued = false;
    return rescanTicks(rescanMs, cfg.scheduler, kicks, debounceMs).pipe(
      filter(() => !queued && (queued = true)),
      concatMap(() =>
        defer(() => {
          queued = false;
          return scan();
        }),
      ),
      engageCandidates(cfg, say),
    );
  });
}
