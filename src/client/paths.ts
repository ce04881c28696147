// URL paths of resources, relative to the cluster's server URL (which may itself carry a path
// prefix such as kcp's `/clusters/root:org` or `/services/apiexport/.../clusters/*`).
import type { ResourceDescriptor } from '../core/resource.js';

/**
 * Where in a resource a request goes.
 *
 * @example
 * ```ts
 * const at: ResourcePathParts = { namespace: 'default', name: 'settings', subresource: 'status' };
 * ```
 */
export interface ResourcePathParts {
  /** Omit (or `undefined`) for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

/**
 * The path of a resource collection, object or subresource.
 *
 * @example
 * ```ts
 * resourcePath(configMaps, { namespace: 'default', name: 'a' }); // '/api/v1/namespaces/default/configmaps/a'
 * resourcePath(configMaps, {});                                   // '/api/v1/configmaps' (all namespaces)
 * ```
 * @param r - the resource.
 * @param parts - namespace, name and subresource.
 * @returns the path, each segment URL-encoded.
 */
export function resourcePath(r: ResourceDescriptor, parts: ResourcePathParts = {}): string {
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${encodeURIComponent(r.group)}/${r.version}`;
  const ns = r.namespaced && parts.namespace !== undefined && parts.namespace !== '' ? `/namespaces/${encodeURIComponent(parts.namespace)}` : '';
  const name = parts.name === undefined ? '' : `/${encodeURIComponent(parts.name)}`;
  const sub = parts.subresource === undefined || parts.name === undefined ? '' : `/${encodeURIComponent(parts.subresource)}`;
  return `${root}${ns}/${r.plural}${name}${sub}`;
}

/** A query parameter value; `undefined` leaves the parameter out. @example `{ limit: 500, watch: true, labelSelector: undefined }` */
export type QueryValue = string | number | boolean | undefined;

/**
 * Appends a query string to a path, skipping undefined values.
 *
 * @example
 * ```ts
 * withQuery('/api/v1/configmaps', { limit: 500, continue: undefined }); // '/api/v1/configmaps?limit=500'
 * ```
 * @param path - the path.
 * @param query - parameters.
 * @returns the path with its query.
 */
export function withQuery(path: string, query: Readonly<Record<string, QueryValue>>): string {
  let q = '';
  for (const k of Object.keys(query)) {
    const v = query[k];
    if (v !== undefined) q += `${q === '' ? '?' : '&'}${formEncode(k)}=${formEncode(String(v))}`;
  }
  return path + q;
}

// What URLSearchParams writes (application/x-www-form-urlencoded), without building one per
// request: every request has a query, and URLSearchParams cost more than the rest of the path.
const unreserved = /^[\w*.-]*$/;
const formOnly = /[!'()~]/g;

function formEncode(s: string): string {
  if (unreserved.test(s)) return s;
  try {
    // encodeURIComponent leaves !'()~ as they are and writes a space as %20; the form encoding does not.
    return encodeURIComponent(s)
      .replaceAll('%20', '+')
      .replace(formOnly, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch {
    // A lone surrogate: URLSearchParams writes U+FFFD for it where encodeURIComponent throws.
    return new URLSearchParams([['', s]]).toString().slice(1);
  }
}
