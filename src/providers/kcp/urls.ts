// From the object that lists virtual-workspace URLs (an APIExportEndpointSlice, a WorkspaceType) to
// the current set of URLs, as a stream: the list starts empty, and URLs come and go with shards.
import type { OperatorFunction } from 'rxjs';
import { distinctUntilChanged, filter, map } from 'rxjs';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';

/**
 * Follows a watch of URL-listing objects and emits the sorted, de-duplicated URLs they list
 * together, each time that set changes (after a listing completes, then per change).
 *
 * @example
 * ```ts
 * watchEvents(providerCluster, apiExportEndpointSlices, { fieldSelector: 'metadata.name=widgets' })
 *   .pipe(urlsOf((s: APIExportEndpointSlice) => (s.status?.endpoints ?? []).map((e) => e.url)))
 *   .subscribe((urls) => console.log(urls)); // [] until the first binding, then one URL per shard
 * ```
 * @param pick - the URLs one object lists.
 * @returns an operator from watch events to URL sets.
 */
export function urlsOf<T extends KubeObject>(pick: (obj: T) => readonly string[]): OperatorFunction<WatchEvent<T>, readonly string[]> {
  return (events) => {
    let byName = new Map<string, readonly string[]>();
    let listing: Map<string, readonly string[]> | undefined;
    return events.pipe(
      map((ev): boolean => {
        switch (ev.type) {
          case 'initStarted':
            listing = new Map();
            return false;
          case 'initApply':
            (listing ??= new Map<string, readonly string[]>()).set(ev.object.metadata.name ?? '', pick(ev.object));
            return false;
          case 'initDone':
            byName = listing ?? new Map<string, readonly string[]>();
            listing = undefined;
            return true;
          case 'applied':
            byName.set(ev.object.metadata.name ?? '', pick(ev.object));
            return true;
          case 'deleted':
            byName.delete(ev.object.metadata.name ?? '');
            return true;
        }
      }),
      filter((changed) => changed),
      map(() => [...new Set([...byName.values()].flat())].filter((u) => u !== '').sort()),
      distinctUntilChanged((a, b) => a.join('\n') === b.join('\n')),
    );
  };
}

/**
 * The URL of the wildcard view of a virtual workspace: every logical cluster at once.
 *
 * @example
 * ```ts
 * wildcardUrl('https://kcp/services/apiexport/2x9k/widgets'); // 'https://kcp/services/apiexport/2x9k/widgets/clusters/*'
 * ```
 * @param endpoint - an endpoint URL.
 * @returns `<endpoint>/clusters/*`.
 */
export function wildcardUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/clusters/*`;
}

/**
 * The URL of one logical cluster through a virtual workspace. Only logical names work there (a
 * `root:org:ws` path is refused by kcp with 403 "Path not resolved to a valid virtual workspace").
 *
 * @example
 * ```ts
 * clusterUrl('https://kcp/services/apiexport/2x9k/widgets', '7q1c'); // '…/widgets/clusters/7q1c'
 * ```
 * @param endpoint - an endpoint URL.
 * @param logical - the logical cluster name.
 * @returns `<endpoint>/clusters/<logical>`.
 */
export function clusterUrl(endpoint: string, logical: string): string {
  return `${endpoint.replace(/\/+$/, '')}/clusters/${encodeURIComponent(logical)}`;
}
