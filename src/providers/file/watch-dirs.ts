// File-system change signals for a set of directories: fs.watch where it works, a periodic poll where
// it does not (fs.watch throws on some file systems, runs out of inotify watches, or says nothing on
// network file systems). Either way a signal only asks for a rescan, whose stat comparison decides
// what changed: a poll costs a stat per file, never a read.
import { watch } from 'node:fs';
import type { Observable, SchedulerLike } from 'rxjs';
import { EMPTY, map, merge, mergeMap, Observable as RxObservable, of, timer } from 'rxjs';

/**
 * How the file provider learns that files changed: `events` (fs.watch on each directory, falling
 * back to polling a directory that cannot be watched), `poll` (a stat of every file and directory
 * every `pollIntervalMs`; for network file systems, where fs.watch is silent), or `off` (periodic
 * rescans only).
 *
 * @example
 * ```ts
 * const mode: FileWatchMode = 'poll';
 * ```
 */
export type FileWatchMode = 'events' | 'poll' | 'off';

/**
 * Watches one directory, calling `changed` on any change in it; what `fs.watch` offers. It may
 * throw (the directory cannot be watched); the returned watcher may emit `error` (the directory went away).
 *
 * @example
 * ```ts
 * const w: WatchDirectory = (dir: string, changed: () => void) => fs.watch(dir, changed);
 * ```
 */
export type WatchDirectory = (dir: string, changed: () => void) => DirectoryWatcher;

/**
 * A running directory watch, as `fs.watch` returns it.
 *
 * @example
 * ```ts
 * const w: DirectoryWatcher = fs.watch('/etc/fleet', () => undefined);
 * ```
 */
export interface DirectoryWatcher {
  /** Stops watching. */
  close(): void;
  /** Listens for the watch failing (the directory removed, too many watches). */
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Options of {@link dirChanges}.
 *
 * @example
 * ```ts
 * const o: DirChangesOptions = { mode: 'events', pollIntervalMs: 2_000, scheduler: asyncScheduler, fellBack: (dir: string, why: string) => console.warn(dir, why) };
 * ```
 */
export interface DirChangesOptions {
  readonly mode: FileWatchMode;
  readonly pollIntervalMs: number;
  readonly scheduler: SchedulerLike;
  /** Called once per directory that is polled because it cannot be watched, with the cause. */
  readonly fellBack?: (dir: string, reason: string) => void;
  /** Default `fs.watch`; tests inject one that fails. */
  readonly watch?: WatchDirectory;
}

const codeOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : err instanceof Error ? (err.message.split('\n')[0] ?? 'error') : 'error';

/** One directory's signals: its watcher's events, or poll ticks once it cannot be watched. */
function oneDir(dir: string, options: DirChangesOptions): Observable<void> {
  const poll = timer(options.pollIntervalMs, options.pollIntervalMs, options.scheduler).pipe(map(() => undefined));
  if (options.mode === 'poll') return poll;
  return new RxObservable<'changed' | 'failed'>((subscriber) => {
    const fail = (err: unknown): void => {
      options.fellBack?.(dir, `cannot watch kubeconfig directory ${dir} (${codeOf(err)}); polling it every ${options.pollIntervalMs} ms`);
      subscriber.next('failed');
      subscriber.complete();
    };
    let w: ReturnType<WatchDirectory> | undefined;
    try {
      w = (options.watch ?? ((d, changed) => watch(d, changed)))(dir, () => {
        subscriber.next('changed');
      });
      // A watcher that fails later (the directory was removed or replaced) hands over to polling too.
      w.on('error', (err) => {
        w?.close();
        fail(err);
      });
    } catch (err) {
      fail(err);
    }
    return () => w?.close();
  }).pipe(mergeMap((s) => (s === 'failed' ? poll : of(undefined))));
}

/**
 * Emits whenever something may have changed in one of the directories (a file written, renamed,
 * created or removed; a Kubernetes volume's `..data` link swapped), per `options.mode`.
 * Unsubscribing closes every watcher and stops every poll.
 *
 * @example
 * ```ts
 * dirChanges(['/etc/fleet'], { mode: 'events', pollIntervalMs: 2_000, scheduler: asyncScheduler }).subscribe(() => rescan());
 * ```
 * @param dirs - directories.
 * @param options - mode, poll interval, clock.
 * @returns the change signals.
 */
export function dirChanges(dirs: readonly string[], options: DirChangesOptions): Observable<void> {
  if (options.mode === 'off' || dirs.length === 0) return EMPTY;
  return merge(...dirs.map((dir) => oneDir(dir, options)));
}
