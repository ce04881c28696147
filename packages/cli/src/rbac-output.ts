// `rxfleet rbac`, the output: the derived roles, optionally their bindings to a ServiceAccount,
// as YAML documents (with a comment saying where each goes) or as one JSON `List`.
import { dump } from 'js-yaml';
import type { RoleDocument } from './rbac-rules.js';
import { clustersAnnotation } from './rbac-rules.js';

/**
 * A RoleBinding or ClusterRoleBinding of a derived role to a ServiceAccount.
 *
 * @example
 * ```ts
 * const b: BindingDocument = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'hello', namespace: 'default', annotations: {} }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'hello' }, subjects: [{ kind: 'ServiceAccount', name: 'hello', namespace: 'default' }] };
 * ```
 */
export interface BindingDocument {
  /** Always `rbac.authorization.k8s.io/v1`. */
  readonly apiVersion: 'rbac.authorization.k8s.io/v1';
  /** RoleBinding for a Role, ClusterRoleBinding for a ClusterRole. */
  readonly kind: 'ClusterRoleBinding' | 'RoleBinding';
  /** The role's name, namespace and annotations. */
  readonly metadata: RoleDocument['metadata'];
  /** The role bound. */
  readonly roleRef: { readonly apiGroup: 'rbac.authorization.k8s.io'; readonly kind: RoleDocument['kind']; readonly name: string };
  /** The ServiceAccount. */
  readonly subjects: readonly { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }[];
}

/**
 * Binds each role to a ServiceAccount, under the role's own name.
 *
 * @example
 * ```ts
 * const bindings = bindingsFor(roles, { namespace: 'default', name: 'hello' });
 * ```
 * @param roles - the derived roles.
 * @param account - the ServiceAccount's namespace and name.
 * @returns one binding per role.
 */
export function bindingsFor(roles: readonly RoleDocument[], account: { readonly namespace: string; readonly name: string }): readonly BindingDocument[] {
  return roles.map((r) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: r.kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: r.metadata,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: r.kind, name: r.metadata.name },
    subjects: [{ kind: 'ServiceAccount', name: account.name, namespace: account.namespace }],
  }));
}

function where(doc: RoleDocument | BindingDocument): string {
  const clusters = doc.metadata.annotations[clustersAnnotation] ?? 'all';
  if (clusters === 'all') return '# on every cluster of the fleet';
  if (clusters === 'home') return '# on the home cluster (where the replicas keep their Leases)';
  return `# on the clusters selected by ${clusters}`;
}

/**
 * Renders roles and bindings: `yaml` as `---`-separated documents, each after a comment naming
 * its clusters; `json` as one `v1` `List`.
 *
 * @example
 * ```ts
 * process.stdout.write(renderRbac([...roles, ...bindings], 'yaml'));
 * ```
 * @param docs - what to print.
 * @param format - `yaml` or `json`.
 * @returns the text, ending in a newline.
 */
export function renderRbac(docs: readonly (RoleDocument | BindingDocument)[], format: 'yaml' | 'json'): string {
  if (format === 'json') return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }, null, 2)}\n`;
  return docs.map((d) => `---\n${where(d)}\n${dump(d, { noRefs: true, lineWidth: -1 })}`).join('');
}
