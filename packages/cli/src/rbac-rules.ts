// `rxfleet rbac`, the derivation: from controller declarations (primary watch, `watches`, `writes`,
// replicas) to the RBAC roles they need, grouped by the clusters and the namespace they apply to.
// Pure: no I/O, so unit tests cover it on the examples' declarations.
import type { ClusterSelector, WatchDeclaration, WriteVerb } from 'rxfleet';
import { leases } from 'rxfleet';
import type { Declaration, DeclaredController } from 'rxfleet/runtime';

/**
 * One RBAC rule (rbac.authorization.k8s.io/v1 PolicyRule) on one resource.
 *
 * @example
 * ```ts
 * const rule: PolicyRule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] };
 * ```
 */
export interface PolicyRule {
  /** The API group (`''` for core). */
  readonly apiGroups: readonly string[];
  /** The resource's plural, or `<plural>/<subresource>`. */
  readonly resources: readonly string[];
  /** The verbs, sorted. */
  readonly verbs: readonly string[];
}

/**
 * A ClusterRole or Role as printed. The annotation `rxfleet.dev/clusters` says on which clusters of
 * the fleet to create and bind it: `all` (every member cluster), `home` (the replicas' home
 * cluster) or the cluster selector of the declarations it was derived from.
 *
 * @example
 * ```ts
 * const r: RoleDocument = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'hello', namespace: 'default', annotations: { 'rxfleet.dev/clusters': 'all' } }, rules: [] };
 * ```
 */
export interface RoleDocument {
  /** Always `rbac.authorization.k8s.io/v1`. */
  readonly apiVersion: 'rbac.authorization.k8s.io/v1';
  /** A Role when every rule is in one namespace, else a ClusterRole. */
  readonly kind: 'ClusterRole' | 'Role';
  /** Name, namespace (Role only) and the `rxfleet.dev/clusters` annotation. */
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly annotations: Readonly<Record<string, string>> };
  /** The rules, sorted by group and resource. */
  readonly rules: readonly PolicyRule[];
}

/**
 * Options of {@link rolesFor}.
 *
 * @example
 * ```ts
 * const opts: RbacOptions = { events: true, leaseNamespace: 'rxfleet-system' };
 * ```
 */
export interface RbacOptions {
  /** Grant `create`, `patch` on events.k8s.io Events next to the primary resource. Default true. */
  readonly events?: boolean;
  /** The Leases' namespace, over (or instead of) the one in the controller's `replicas` option. */
  readonly leaseNamespace?: string;
}

/** The annotation naming the clusters a role is for. @example `role.metadata.annotations[clustersAnnotation]` */
export const clustersAnnotation = 'rxfleet.dev/clusters';

const readVerbs = ['get', 'list', 'watch'];

type Needs = readonly { readonly sub?: string; readonly verbs: readonly string[] }[];

// What each request verb a sink sends needs (see WriteDeclaration's documentation); `sub` is the subresource.
const writeVerbs: Readonly<Record<WriteVerb, Needs>> = {
  apply: [{ verbs: ['get', 'patch', 'create'] }],
  create: [{ verbs: ['create'] }],
  update: [{ verbs: ['get', 'update'] }],
  patch: [{ verbs: ['patch'] }],
  delete: [{ verbs: ['delete', 'list'] }],
};

// What writing each declared subresource needs.
const subresourceNeeds: Readonly<Record<'status' | 'finalizers', Needs>> = {
  status: [{ verbs: ['get'] }, { sub: 'status', verbs: ['get', 'patch', 'update'] }],
  finalizers: [{ verbs: ['get', 'update'] }, { sub: 'finalizers', verbs: ['update'] }],
};

/**
 * Says which clusters a selector picks, as printed in the annotation: `all`, a label selector in
 * kubectl syntax, or `predicate <name>` for a function (not describable: bind it where it holds).
 *
 * @example
 * ```ts
 * describeClusters({ matchLabels: { role: 'hub' } }); // 'role=hub'
 * ```
 * @param sel - the selector, or undefined for every cluster.
 * @returns the description.
 */
export function describeClusters(sel: ClusterSelector | undefined): string {
  if (sel === undefined) return 'all';
  if (typeof sel === 'function') return `predicate ${sel.name === '' ? '(anonymous)' : sel.name}`;
  const parts = [
    ...Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(sel.matchExpressions ?? []).map((e) =>
      e.operator === 'Exists' ? e.key : e.operator === 'DoesNotExist' ? `!${e.key}` : `${e.key} ${e.operator === 'In' ? 'in' : 'notin'} (${(e.values ?? []).join(',')})`,
    ),
  ];
  return parts.length === 0 ? 'all' : parts.join(',');
}

interface Group {
  readonly clusters: string;
  readonly namespace: string | undefined;
  readonly rules: Map<string, Set<string>>; // `<group>\0<resource>` → verbs
}

/** Collects grants into groups keyed by clusters and namespace. */
class Grants {
  readonly groups = new Map<string, Group>();
  add(clusters: string, namespace: string | undefined, group: string, resource: string, verbs: readonly string[]): void {
    const key = `${clusters}\0${namespace ?? ''}`;
    let g = this.groups.get(key);
    if (g === undefined) {
      g = { clusters, namespace, rules: new Map() };
      this.groups.set(key, g);
    }
    const rk = `${group}\0${resource}`;
    const set = g.rules.get(rk) ?? new Set<string>();
    for (const v of verbs) set.add(v);
    g.rules.set(rk, set);
  }
}

function scopeOf(d: WatchDeclaration): { clusters: string; namespace: string | undefined } {
  // A cluster-scoped resource has no namespace, whatever the declaration says.
  return { clusters: describeClusters(d.clusterSelector), namespace: d.resource.namespaced ? d.namespace : undefined };
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
}

function documents(name: string, grants: Grants): RoleDocument[] {
  const out: RoleDocument[] = [];
  // Every cluster first, the home cluster last, the selected ones between (ordinal, stable).
  const rank = (g: Group): string => `${g.clusters === 'all' ? 0 : g.clusters === 'home' ? 2 : 1}\0${g.clusters}\0${g.namespace ?? ''}`;
  const groups = [...grants.groups.values()].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
  for (const g of groups) {
    const rules = [...g.rules.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, verbs]) => {
        const [group = '', resource = ''] = k.split('\0');
        return { apiGroups: [group], resources: [resource], verbs: [...verbs].sort() };
      });
    const suffix = g.clusters === 'all' || g.clusters === 'home' ? '' : `-${slug(g.clusters)}`;
    const roleName = g.clusters === 'home' ? `${name}-leases` : `${name}${suffix}`;
    const annotations = { [clustersAnnotation]: g.clusters };
    const metadata = g.namespace === undefined ? { name: roleName, annotations } : { name: roleName, namespace: g.namespace, annotations };
    out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: g.namespace === undefined ? 'ClusterRole' : 'Role', metadata, rules });
  }
  return out;
}

function grantsOf(c: DeclaredController, options: RbacOptions): Grants {
  const grants = new Grants();
  const primary = scopeOf({ resource: c.resource, ...(c.select?.namespace === undefined ? {} : { namespace: c.select.namespace }), ...(c.select?.clusterSelector === undefined ? {} : { clusterSelector: c.select.clusterSelector }) });
  grants.add(primary.clusters, primary.namespace, c.resource.group, c.resource.plural, readVerbs);
  // Events are recorded about the objects reconciled, so next to the primary resource.
  if (options.events ?? true) grants.add(primary.clusters, primary.namespace, 'events.k8s.io', 'events', ['create', 'patch']);
  for (const w of c.watches ?? []) {
    const s = scopeOf(w);
    grants.add(s.clusters, s.namespace, w.resource.group, w.resource.plural, readVerbs);
  }
  for (const w of c.writes ?? []) {
    const s = scopeOf(w);
    const needs = [...(w.verbs ?? (w.subresources === undefined ? ['apply' as const] : [])).map((v) => writeVerbs[v]), ...(w.subresources ?? []).map((sub) => subresourceNeeds[sub])];
    for (const need of needs.flat()) {
      grants.add(s.clusters, s.namespace, w.resource.group, need.sub === undefined ? w.resource.plural : `${w.resource.plural}/${need.sub}`, need.verbs);
    }
  }
  return grants;
}

/**
 * The roles a module's controllers need: per controller, one role per distinct (clusters,
 * namespace) of its declarations, plus a Role on Leases in the home cluster's lease namespace when
 * it runs as several replicas (or `options.leaseNamespace` is given).
 *
 * @example
 * ```ts
 * const roles = rolesFor([{ controller: hello }], { leaseNamespace: 'rxfleet-system' });
 * ```
 * @param declared - the controllers (and their replicas options) the module declared.
 * @param options - Events and Leases.
 * @returns the roles, in a stable order.
 */
export function rolesFor(declared: readonly Declaration[], options: RbacOptions = {}): readonly RoleDocument[] {
  return declared.flatMap((d) => {
    const grants = grantsOf(d.controller, options);
    const leaseNamespace = options.leaseNamespace ?? d.replicas?.namespace;
    if (leaseNamespace !== undefined) grants.add('home', leaseNamespace, leases.group, leases.plural, ['create', 'delete', 'get', 'list', 'update', 'watch']);
    return documents(d.controller.name, grants);
  });
}
