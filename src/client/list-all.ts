// Every page of a list as one list: the paging both the client and its rate-limited wrapper use, so
// that each page is its own request (and takes its own token where a rate limit applies).
import type { KubeError } from '../core/errors.js';
import type { KubeObject, ObjectList } from '../core/object.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { ListOptions } from './call-options.js';

/**
 * Lists every page, following continue tokens (500 per page unless `limit` says otherwise). The
 * resourceVersion is the first page's: all pages are one snapshot. An expired continue token
 * resolves to the `Gone` error of that page.
 *
 * @example
 * ```ts
 * const all = await listAllPages((o: ListOptions) => client.list(configMaps, o), { namespace: 'default' });
 * ```
 * @param list - fetches one page.
 * @param opts - the list's options.
 * @returns the whole list, or the first page's error.
 */
export async function listAllPages<T extends KubeObject>(list: (opts: ListOptions) => Promise<Either<KubeError, ObjectList<T>>>, opts: ListOptions = {}): Promise<Either<KubeError, ObjectList<T>>> {
  const items: T[] = [];
  let first: ObjectList<T> | undefined;
  let cont: string | undefined;
  // Later pages must not repeat the resourceVersion: the continue token already pins the snapshot.
  const { resourceVersion: _rv, resourceVersionMatch: _rvm, ...rest } = opts;
  do {
    const page = await list(cont === undefined ? { ...opts, limit: opts.limit ?? 500 } : { ...rest, limit: opts.limit ?? 500, continue: cont });
    if (E.isLeft(page)) return page;
    first ??= page.right;
    items.push(...page.right.items);
    cont = page.right.metadata.continue;
  } while (cont !== undefined && cont !== '');
  const { continue: _done, ...metadata } = first.metadata;
  const all: ObjectList<T> = { ...first, metadata, items };
  return E.right(all);
}
