// A related object's namespace in the workspace (`object.namespace`). The workspace is one tenant's:
// any namespace there is the consumer's own business, so the agent reads the consumer object's
// field and looks (or writes) there. The service cluster is shared: there the related object stays
// in the copy's namespace, the one the agent placed the copy in, and the agent writes that
// namespace into the copy's field, so the service's operator reads it from where it expects to and
// a consumer can never steer a service-side namespace (as with names, related-places.ts). A
// namespace the consumer cannot write the same way on both sides (metadata, status, a template) is
// refused: it would name one namespace in the workspace and another on the service cluster.
import type { KubeObject } from 'rxfleet';
import type { Json, Problems } from './config-check.js';
import { at, mapping, text } from './config-check.js';
import type { RelatedNameResult } from './naming.js';
import { dnsLabelProblem, relatedName } from './naming.js';
import { getPath, pathProblem, setSegments, splitPath } from './object-path.js';
import type { PublishedPlan } from './plan.js';
import { checkRegex } from './related-selector-check.js';
import type { RelatedNamespace, RelatedResource } from './types.js';

/**
 * What keeps a namespace locator from being safe, or `undefined`: its path must be a field of the
 * consumer object's synced contents (not `metadata`, `status`, `apiVersion` or `kind`).
 *
 * @example
 * ```ts
 * relatedNamespaceProblem({ path: 'status.secretNamespace' }); // 'path status.secretNamespace: ...'
 * ```
 * @param ns - the locator.
 * @returns the problem in words, or `undefined`.
 */
export function relatedNamespaceProblem(ns: RelatedNamespace): string | undefined {
  const bad = pathProblem(ns.path);
  if (bad !== undefined) return `path ${bad}`;
  const head = splitPath(ns.path)[0];
  if (head === 'metadata' || head === 'status' || head === 'apiVersion' || head === 'kind') {
    return `path ${ns.path}: must be a field of the consumer object's synced contents (e.g. spec.secretNamespace): on the service cluster the related object stays in the copy's namespace and the agent writes that namespace into this field, which it can do only for a field it syncs down`;
  }
  return undefined;
}

/**
 * Checks a related entry's `object.namespace` as written (`form` `agent`: `{ path, regex }`; a
 * PublishedResource: `{ reference: { path, regex } }`, its `template` and `selector` refused);
 * every problem goes to `p` with its path.
 *
 * @example
 * ```ts
 * checkRelatedNamespace({ path: 'spec.secretNamespace' }, 'published[0].related[0].object.namespace', problems, 'agent'); // { path: 'spec.secretNamespace' }
 * ```
 * @param v - the locator as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param form - the form it is written in.
 * @returns the locator in the agent's form, or `undefined`.
 */
export function checkRelatedNamespace(v: unknown, path: string, p: Problems, form: 'agent' | 'PublishedResource'): RelatedNamespace | undefined {
  const before = p.list.length;
  const why = 'not supported: on the service cluster the related object stays in the copy\'s namespace (a consumer must never name a service-side namespace), and this would name another one there; use reference.path, a field of the synced spec';
  const outer = form === 'agent' ? mapping(v, path, ['path', 'regex'], p) : mapping(v, path, ['reference'], p, { template: why, selector: why });
  const where = form === 'agent' ? path : at(path, 'reference');
  const m: Json | undefined = form === 'agent' ? outer : outer?.reference === undefined ? undefined : mapping(outer.reference, where, ['path', 'regex'], p);
  if (outer !== undefined && m === undefined && p.list.length === before) p.add(path, 'required: reference');
  if (m === undefined) return undefined;
  const nsPath = text(m, 'path', where, p, () => undefined, true);
  const regex = m.regex === undefined ? undefined : checkRegex(m.regex, at(where, 'regex'), p, true);
  const ns = nsPath === undefined ? undefined : { path: nsPath, ...(regex === undefined ? {} : { regex }) };
  const problem = ns === undefined ? undefined : relatedNamespaceProblem(ns);
  if (problem !== undefined) p.add(at(where, 'path'), problem);
  return p.list.length === before ? ns : undefined;
}

/**
 * The related object's namespace in the workspace: the consumer object's field (rewritten by the
 * regex), or the consumer object's namespace when the entry has no `object.namespace`.
 *
 * @example
 * ```ts
 * const ns = workspaceNamespace(related, consumer); // { type: 'named', name: 'team-secrets' }
 * ```
 * @param related - the related entry.
 * @param consumer - the consumer object.
 * @returns the namespace, or why there is none (unset: nothing synced yet; invalid).
 */
export function workspaceNamespace(related: RelatedResource, consumer: KubeObject): RelatedNameResult {
  const ns = related.object.namespace;
  if (ns === undefined) return { type: 'named', name: consumer.metadata.namespace ?? '' };
  const n = relatedName({ path: ns.path, ...(ns.regex === undefined ? {} : { regex: ns.regex }) }, '', consumer);
  if (n.type !== 'named') return n;
  const problem = dnsLabelProblem(n.name);
  return problem === undefined ? n : { type: 'invalid', message: `related namespace ${JSON.stringify(n.name)} ${problem}` };
}

/**
 * The copy's synced fields with every related namespace field the consumer set replaced by the
 * copy's own namespace (see the file's header).
 *
 * @example
 * ```ts
 * withCopyNamespaces(plan, 'ws-1x2y3z', consumer, { spec: { secretNamespace: 'team-secrets' } }); // { spec: { secretNamespace: 'ws-1x2y3z' } }
 * ```
 * @param plan - the published resource's plan.
 * @param copyNamespace - the namespace of the copy on the service cluster.
 * @param consumer - the consumer object.
 * @param fields - the top-level fields the copy gets.
 * @returns the fields with the namespaces replaced.
 */
export function withCopyNamespaces<T extends Readonly<Record<string, unknown>>>(plan: PublishedPlan, copyNamespace: string, consumer: KubeObject, fields: T): T {
  let out = fields;
  for (const related of plan.published.related ?? []) {
    const ns = related.object.namespace;
    if (ns === undefined) continue;
    const v = getPath(consumer, ns.path);
    if (typeof v === 'string' && v !== '') out = setSegments(out, splitPath(ns.path), copyNamespace);
  }
  return out;
}
