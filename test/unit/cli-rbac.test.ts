// `rxfleet rbac`'s derivation on the examples' own declarations (loaded as the CLI loads them:
// their `main(...)` hands the controller over and runs nothing), and on synthetic declarations
// for cluster selectors and every write verb.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { configMaps, namespaces, resource, secrets } from '../../src/index.js';
import { loadControllers } from '../../packages/cli/src/load-module.js';
import { bindingsFor, renderRbac } from '../../packages/cli/src/rbac-output.js';
import { describeClusters, rolesFor } from '../../packages/cli/src/rbac-rules.js';
import type { DeclaredController } from '../../src/runtime/declarations.js';
import type { WriteDeclaration } from '../../src/index.js';

const repo = join(import.meta.dirname, '..', '..');
const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });

function kubeconfigFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-rbac-'));
  const path = join(dir, 'kubeconfig');
  const yaml = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:1' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;
  writeFileSync(path, yaml, { mode: 0o600 });
  return path;
}

describe('rxfleet rbac on examples/hello', () => {
  it('grants a Role in the watched namespace: read and apply ConfigMaps, record Events', async () => {
    const declared = await loadControllers(join(repo, 'examples/hello/main.ts'), ['team-a']);
    expect(declared.map((d) => d.controller.name)).toEqual(['hello']);
    expect(rolesFor(declared)).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'hello', namespace: 'team-a', annotations: { 'rxfleet.dev/clusters': 'all' } },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
        ],
      },
    ]);
  });
});

describe('rxfleet rbac on examples/ha', () => {
  it('grants a ClusterRole for the fleet and a Role on Leases in the home cluster', async () => {
    const args = ['--cluster', `local=${kubeconfigFile()}`, '--replicas', 'shard', '--lease-namespace', 'rxfleet-system'];
    const declared = await loadControllers(join(repo, 'examples/ha/main.ts'), args);
    expect(declared.map((d) => [d.controller.name, d.replicas?.namespace])).toEqual([['ha-copy', 'rxfleet-system']]);
    const roles = rolesFor(declared, { events: false });
    expect(roles.map((r) => [r.kind, r.metadata.name, r.metadata.namespace, r.metadata.annotations['rxfleet.dev/clusters']])).toEqual([
      ['ClusterRole', 'ha-copy', undefined, 'all'],
      ['Role', 'ha-copy-leases', 'rxfleet-system', 'home'],
    ]);
    expect(roles[0]?.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'patch', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(roles[1]?.rules).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] }]);
  });

  it('says what to do when a module declares no controller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-rbac-'));
    writeFileSync(join(dir, 'empty.mjs'), 'export const x = 1;\n');
    await expect(loadControllers(join(dir, 'empty.mjs'))).rejects.toThrow(/declares no controller; export one \(`export default controller/);
    await expect(loadControllers(join(dir, 'missing.mjs'))).rejects.toThrow(/does not exist/);
  });
});

describe('rolesFor', () => {
  const hub = { matchLabels: { role: 'hub' } };
  const fanout: DeclaredController = {
    name: 'fanout',
    resource: widgets,
    select: { clusterSelector: hub },
    watches: [{ resource: secrets, namespace: 'fleet', clusterSelector: hub }, { resource: namespaces, namespace: 'ignored' }],
    writes: [
      { resource: widgets, subresources: ['status', 'finalizers'], clusterSelector: hub },
      { resource: configMaps, verbs: ['apply', 'delete'], clusterSelector: { matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['hub'] }] } },
    ],
  };

  it('gives one role per clusters and namespace, each saying where it goes', () => {
    const roles = rolesFor([{ controller: fanout }], { events: false });
    expect(roles.map((r) => [r.kind, r.metadata.name, r.metadata.namespace, r.metadata.annotations['rxfleet.dev/clusters']])).toEqual([
      ['ClusterRole', 'fanout', undefined, 'all'],
      ['ClusterRole', 'fanout-role-notin-hub', undefined, 'role notin (hub)'],
      ['ClusterRole', 'fanout-role-hub', undefined, 'role=hub'],
      ['Role', 'fanout-role-hub', 'fleet', 'role=hub'],
    ]);
    // A cluster-scoped resource ignores the namespace it was declared with.
    expect(roles[0]?.rules).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }]);
    expect(roles[2]?.rules).toEqual([
      { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['example.com'], resources: ['widgets/finalizers'], verbs: ['update'] },
      { apiGroups: ['example.com'], resources: ['widgets/status'], verbs: ['get', 'patch', 'update'] },
    ]);
    expect(roles[1]?.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'delete', 'get', 'list', 'patch'] }]);
  });

  // The rules below are what `rxfleet rbac` printed for the same writes before the verbs became
  // Kubernetes' own (`verbs: ['apply', 'status']`, `['finalizers']`, …): a declaration that says
  // the same thing must grant exactly the same.
  it('grants for verbs and subresources what the old status/finalizers verbs granted', () => {
    const rulesOf = (w: Omit<WriteDeclaration, 'resource'>) => rolesFor([{ controller: { name: 'c', resource: widgets, writes: [{ resource: widgets, ...w }] } }], { events: false }).map((r) => r.rules);
    const g = (resources: string, verbs: string[]) => ({ apiGroups: ['example.com'], resources: [resources], verbs });
    expect(rulesOf({ verbs: ['apply'], subresources: ['status'] })).toEqual([[g('widgets', ['create', 'get', 'list', 'patch', 'watch']), g('widgets/status', ['get', 'patch', 'update'])]]);
    expect(rulesOf({ subresources: ['finalizers'] })).toEqual([[g('widgets', ['get', 'list', 'update', 'watch']), g('widgets/finalizers', ['update'])]]);
    expect(rulesOf({ verbs: ['update', 'delete'], subresources: ['status', 'finalizers'] })).toEqual([
      [g('widgets', ['delete', 'get', 'list', 'update', 'watch']), g('widgets/finalizers', ['update']), g('widgets/status', ['get', 'patch', 'update'])],
    ]);
    expect(rulesOf({})).toEqual([[g('widgets', ['create', 'get', 'list', 'patch', 'watch'])]]);
    expect(rulesOf({ verbs: [] })).toEqual([[g('widgets', ['get', 'list', 'watch'])]]);
  });

  it('describes predicates and selectors', () => {
    expect(describeClusters(undefined)).toBe('all');
    expect(describeClusters({})).toBe('all');
    expect(describeClusters(function onlyEast() { return true; })).toBe('predicate onlyEast');
    expect(describeClusters({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'x', operator: 'Exists' }, { key: 'y', operator: 'In', values: ['1', '2'] }] })).toBe('a=b,x,y in (1,2)');
  });

  it('adds a Lease Role when asked for a lease namespace, and bindings for a ServiceAccount', () => {
    const roles = rolesFor([{ controller: { name: 'c', resource: configMaps } }], { leaseNamespace: 'ops' });
    const bindings = bindingsFor(roles, { namespace: 'ops', name: 'c' });
    expect(bindings.map((b) => [b.kind, b.metadata.name, b.metadata.namespace, b.roleRef.kind])).toEqual([
      ['ClusterRoleBinding', 'c', undefined, 'ClusterRole'],
      ['RoleBinding', 'c-leases', 'ops', 'Role'],
    ]);
    const yaml = renderRbac([...roles, ...bindings], 'yaml');
    expect(yaml).toContain('---\n# on the home cluster (where the replicas keep their Leases)\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n');
    const docs = yaml.split(/^---$/m).filter((d) => d.trim() !== '').map((d) => load(d));
    expect(docs).toEqual([...roles, ...bindings].map((d) => JSON.parse(JSON.stringify(d)) as unknown));
    expect(JSON.parse(renderRbac(roles, 'json'))).toMatchObject({ apiVersion: 'v1', kind: 'List', items: [{ kind: 'ClusterRole' }, { kind: 'Role' }] });
  });
});
