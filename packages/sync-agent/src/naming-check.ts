// The checks that keep two consumer objects from ever sharing a place on the service cluster,
// made once at start (preflight) rather than found out per object: the naming templates must read
// every field that tells consumer objects apart, and one CRD is published once.
import { parseTemplate, templateFields } from './template.js';
import { defaultNameTemplate, defaultNamespaceTemplate } from './naming.js';
import type { PublishedResource } from './types.js';

/**
 * What keeps a published resource's naming from giving every consumer object a place of its own, or
 * `undefined`. Together the templates that place a copy (namespace and name for a namespaced
 * resource, the name alone for a cluster-scoped one) must read `.ClusterName` (two workspaces),
 * `.Object.metadata.name`, and for a namespaced resource `.Object.metadata.namespace` unless
 * `filter.namespace` fixes it (two namespaces of a workspace), plainly or hashed.
 *
 * @example
 * ```ts
 * namingProblem({ name: 'dbs', crd: { group: 'db.example.dev', kind: 'Database' }, naming: { namespace: 'shared' } }, true);
 * // 'naming: the templates never read .ClusterName, so objects in different workspaces ...'
 * ```
 * @param published - the published resource.
 * @param namespaced - whether its resource is namespaced on the service cluster.
 * @param kcpNamespaced - whether it is namespaced in kcp (`projection.scope`; default: the same).
 * @returns the problem in words, or `undefined`.
 */
export function namingProblem(published: PublishedResource, namespaced: boolean, kcpNamespaced = namespaced): string | undefined {
  const sources = [...(namespaced ? [published.naming?.namespace ?? defaultNamespaceTemplate] : []), published.naming?.name ?? defaultNameTemplate];
  const fields = new Set<string>();
  for (const s of sources) {
    const t = parseTemplate(s);
    if (t.type === 'invalid') return undefined; // reported as a template problem
    for (const f of templateFields(t.template)) fields.add(f);
  }
  const need: readonly (readonly [string, string])[] = [
    ['.ClusterName', 'in different workspaces'],
    ...(kcpNamespaced && published.filter?.namespace === undefined ? [['.Object.metadata.namespace', 'in different namespaces of one workspace'] as const] : []),
    ['.Object.metadata.name', 'with different names'],
  ];
  const missing = need.filter(([f]) => !fields.has(f));
  if (missing.length === 0) return undefined;
  const which = namespaced ? 'naming.namespace and naming.name' : 'naming.name (the resource is cluster-scoped)';
  return `naming: ${which} never read ${missing.map(([f]) => f).join(', ')}, so objects ${missing.map(([, w]) => w).join(' or ')} with the same other fields would get the same place on the service cluster; add ${missing.map(([f]) => `{{ ${f} | sha3short }}`).join(' and ')} to a template`;
}

/**
 * Two published resources with the same source CRD: their copies would be objects of one resource
 * in the same namespaces, each agent controller blind to the other's. The problem of entry `i` when
 * an earlier entry publishes its CRD, naming both published resources.
 *
 * @example
 * ```ts
 * sharedSourceProblem(config.published, 1); // 'publishes CRD Database.db.example.dev, as published[0] "dbs-a" does; ...'
 * ```
 * @param published - the config's published resources.
 * @param i - the entry to check.
 * @returns the problem, or `undefined`.
 */
export function sharedSourceProblem(published: readonly PublishedResource[], i: number): string | undefined {
  const p = published[i];
  if (p === undefined) return undefined;
  const first = published.findIndex((q) => q.crd.group === p.crd.group && q.crd.kind === p.crd.kind);
  if (first === i) return undefined;
  return `publishes CRD ${p.crd.kind}.${p.crd.group}, as published[${first}] "${published[first]?.name ?? ''}" does; their copies would share names on the service cluster, so a CRD is published once`;
}
