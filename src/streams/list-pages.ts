// The list half of list-then-watch: every page of one snapshot, one at a time, so a store can take
// objects as they come instead of holding a second copy of the whole list.
import type { Observable } from 'rxjs';
import { defer, EMPTY, expand, from } from 'rxjs';
import type { KubeError } from '../core/errors.js';
import type { KubeObject, ObjectList } from '../core/object.js';
import type { ListOptions } from '../client/client.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { ListerWatcher } from './watch-source.js';

/** Page size of the lists a watch makes (client-go's reflector uses the same). @example `listPages(source, opts, defaultPageSize)` */
export const defaultPageSize = 500;

/**
 * Lists every page of a collection, following continue tokens. Emits each page as `Right`; on a
 * failure emits one `Left` and completes (an expired continue token arrives as `Gone`: the caller
 * lists again from scratch). Later pages send only the continue token, which pins the snapshot of
 * the first page.
 *
 * @example
 * ```ts
 * listPages(clusterListerWatcher(cluster, configMaps), { namespace: 'default' }).subscribe((page) => {
 *   if (E.isRight(page)) console.log(page.right.items.length);
 * });
 * ```
 * @param listerWatcher - where to list from.
 * @param opts - selectors, namespace, resourceVersion of the first page.
 * @param limit - page size.
 * @returns a cold stream of pages.
 */
export function listPages<T extends KubeObject>(
  listerWatcher: ListerWatcher<T>,
  opts: ListOptions,
  limit: number = defaultPageSize,
): Observable<Either<KubeError, ObjectList<T>>> {
  const { resourceVersion: _rv, resourceVersionMatch: _rvm, continue: _c, ...rest } = opts;
  const page = (o: ListOptions): Observable<Either<KubeError, ObjectList<T>>> => defer(() => from(listerWatcher.list(o)));
  return page({ ...opts, limit }).pipe(
    expand((p) => {
      const token = E.isRight(p) ? p.right.metadata.continue : undefined;
      return token === undefined || token === '' ? EMPTY : page({ ...rest, limit, continue: token });
    }),
  );
}
