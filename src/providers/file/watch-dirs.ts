// File-system change signals for a set of directories. fs.watch is a hint, not a source of truth:
// it misses events on some file systems and platforms, which the periodic rescan covers.
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import type { Observable } from 'rxjs';
import { merge, Observable as RxObservable } from 'rxjs';

/**
 * Emits whenever something changes in one of the directories (a file written, renamed, created or
 * removed). Directories that cannot be watched are skipped silently; unsubscribing closes every
 * watcher.
 *
 * @example
 * ```ts
 * dirChanges(['/etc/fleet']).subscribe(() => rescan());
 * ```
 * @param dirs - directories.
 * @returns the change signals.
 */
export function dirChanges(dirs: readonly string[]): Observable<void> {
  return merge(
    ...dirs.map(
      (dir) =>
        new RxObservable<void>((subscriber) => {
          let w: FSWatcher | undefined;
          try {
            w = watch(dir, () => {
              subscriber.next();
            });
            // A watcher error (directory removed) only ends the hint; the rescan carries on.
            w.on('error', () => w?.close());
          } catch {
            w = undefined;
          }
          return () => w?.close();
        }),
    ),
  );
}
