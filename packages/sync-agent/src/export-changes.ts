// What the preflight reads of an APIExport (who keeps it, the entries it lists) can be why a
// PublishedResource is refused: an entry another provider made under the same group+resource, an
// export another agent keeps. When an admin fixes that export, nothing on the service cluster
// changes, so the live agent watches the exports it checks against, while it refuses something,
// and checks again once one of them changes. Changes are told apart from the watch's other events
// (kcp's status updates, a re-opened watch) by what the preflight reads, and come out coalesced:
// at most one per `debounceMs`, however many exports change how often.
import type { SchedulerLike } from 'rxjs';
import { Observable, asyncScheduler, debounceTime, defer, distinctUntilChanged, filter, map, merge } from 'rxjs';
import type { ClusterClient } from 'rxfleet/client';
import type { APIExport } from 'rxfleet/providers/kcp';
import { apiExports } from 'rxfleet/providers/kcp';
import { exportOwner } from './export-merge.js';
import { reopenedWatch } from './reopened-watch.js';

/** One provider workspace's export, and how to reach it for as long as it is watched. */
export interface WatchedExport {
  /** The APIExport's name. */
  readonly apiExport: string;
  /** Opens a client of its workspace (with the installation's own credentials) and gives it back to close. */
  readonly open: () => { readonly client: ClusterClient; readonly close: () => void };
}

/** What {@link exportChanges} takes besides the exports. */
export interface ExportChangesOptions {
  /** How long after an export's last change the check starts (ms). Default 1,000. */
  readonly debounceMs?: number;
  /** The clock of the debounce and the retries. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Emits once the exports have changed what the preflight reads of them (their keeper, their
 * entries), `debounceMs` after the last such change. Each export is watched through its own
 * client, closed when the result is unsubscribed; a watch that fails is opened again after 2 to 30 s
 * (reopened-watch.ts).
 * The first state each watch sees counts as a change: what changed between the last check and the
 * watch's start is not lost.
 *
 * @example
 * ```ts
 * const changes = exportChanges([{ apiExport: 'databases.example.dev', open: () => ({ client: kcp, close: () => undefined }) }]);
 * changes.subscribe(() => recheck.next());
 * ```
 * @param exports - the exports and their workspaces.
 * @param options - the debounce and the clock.
 * @returns the coalesced changes.
 */
export function exportChanges(exports: readonly WatchedExport[], options: ExportChangesOptions = {}): Observable<void> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const one = (w: WatchedExport): Observable<string> =>
    reopenedWatch(
      defer(() => {
        const opened = w.open();
        return new Observable<string>((subscriber) => {
          const sub = opened.client.watch(apiExports, { fieldSelector: `metadata.name=${w.apiExport}` }).subscribe(subscriber);
          return () => {
            sub.unsubscribe();
            opened.close();
          };
        });
      }),
      scheduler,
    ).pipe(
      map(readState),
      filter((s): s is string => s !== undefined),
      distinctUntilChanged(),
    );
  return merge(...exports.map(one)).pipe(
    debounceTime(options.debounceMs ?? 1_000, scheduler),
    map(() => undefined),
  );
}

// What the preflight reads of the export in one watch line: its keeper and entries, or its absence;
// `undefined` for a line that says nothing of them (a bookmark, an error the watch reports).
function readState(line: string): string | undefined {
  let event: { readonly type?: string; readonly object?: APIExport };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return undefined;
  }
  if (event.type === 'DELETED') return 'absent';
  if ((event.type !== 'ADDED' && event.type !== 'MODIFIED') || event.object === undefined) return undefined;
  return JSON.stringify([exportOwner(event.object) ?? null, event.object.spec?.resources ?? []]);
}
