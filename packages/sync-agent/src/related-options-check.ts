// A related entry's options besides where its object is: `syncStatus`, `cleanup` and `mutation`,
// checked the same way in both forms (the agent's own and a PublishedResource's). What would be
// accepted and do nothing is refused: a status mutation without `syncStatus`, and `cleanup: false`
// on copies the agent always deletes (origin `kcp`: copies on the service cluster).
import type { Json, Problems } from './config-check.js';
import { at, describe } from './config-check.js';
import { checkRelatedMutation } from './mutation-config.js';

const flag = (m: Json, key: string, path: string, p: Problems): boolean | undefined => {
  const v = m[key];
  if (v === undefined || typeof v === 'boolean') return v;
  p.add(at(path, key), `expected true or false, got ${describe(v)}`);
  return undefined;
};

/**
 * Checks a related entry's `syncStatus`, `cleanup` and `mutation` (see the file's header); every
 * problem goes to `p` with its path. Returns the fields in the agent's form: for a PublishedResource,
 * `cleanup` takes api-syncagent's default (false) where it has an effect (origin `service`).
 *
 * @example
 * ```ts
 * checkRelatedOptions({ origin: 'service', syncStatus: true }, 'published[0].related[0]', problems, 'agent'); // { syncStatus: true }
 * ```
 * @param m - the related entry as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param form - the form it is written in: a PublishedResource's `cleanup` defaults to false.
 * @returns the fields to keep.
 */
export function checkRelatedOptions(m: Json, path: string, p: Problems, form: 'agent' | 'PublishedResource'): Json {
  const syncStatus = flag(m, 'syncStatus', path, p);
  const cleanup = flag(m, 'cleanup', path, p);
  if (m.mutation !== undefined) checkRelatedMutation(m.mutation, at(path, 'mutation'), p);
  const mutation = typeof m.mutation === 'object' && m.mutation !== null ? (m.mutation as Json) : undefined;
  if (mutation?.status !== undefined && syncStatus !== true) {
    p.add(at(at(path, 'mutation'), 'status'), 'needs syncStatus: true (without it the related object\'s status is not copied, and the rules would do nothing)');
  }
  if (m.origin === 'kcp' && cleanup === false) {
    p.add(at(path, 'cleanup'), 'false is for origin service only: with origin kcp the copies are on the service cluster, and the agent always deletes them with their primary object (as api-syncagent does), so nothing of a consumer stays there unowned; leave it out');
  }
  const kept = m.origin === 'service' && (cleanup === false || (cleanup === undefined && form === 'PublishedResource'));
  return { ...(syncStatus === true ? { syncStatus } : {}), ...(kept ? { cleanup: false } : {}), ...(mutation === undefined ? {} : { mutation }) };
}
