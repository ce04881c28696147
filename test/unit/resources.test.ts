// rxfleet/resources, the generated built-in types: files stay small, descriptors are well formed
// and unique, every inline @example type-checks, and the root's built-in types are these.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ConfigMap as RootConfigMap, KubeObject, LabelSelector as RootLabelSelector, Lease as RootLease, Namespace as RootNamespace, Secret as RootSecret, ResourceDescriptor } from '../../src/index.js';
import * as root from '../../src/index.js';
import type { ConfigMap, Deployment, LabelSelector, Lease, Namespace, Secret } from '../../src/resources/index.js';
import * as resources from '../../src/resources/index.js';
import { repoRoot, typeErrors } from './type-check-support.js';

const dir = join(repoRoot, 'src', 'resources');
const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]));
const descriptors = Object.entries(resources) as [string, ResourceDescriptor][];

describe('rxfleet/resources', () => {
  it('keeps every generated file under 300 lines', () => {
    const long = files(dir).filter((f) => readFileSync(f, 'utf8').split('\n').length >= 300);
    expect(long.map((f) => relative(repoRoot, f))).toEqual([]);
  });

  it('has the descriptors controllers use most, frozen and well formed', () => {
    const want: Record<string, Omit<ResourceDescriptor, '__object'>> = {
      deployments: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
      jobs: { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true },
      ingresses: { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true },
      clusterRoles: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false },
      podDisruptionBudgets: { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
      pods: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
      eventsV1Events: { group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
    };
    for (const [name, d] of Object.entries(want)) expect(resources[name as keyof typeof resources], name).toEqual(d);
    for (const [name, d] of descriptors) {
      expect(Object.isFrozen(d), name).toBe(true);
      expect(d.plural, name).toMatch(/^[a-z0-9]+$/);
    }
  });

  it('is the home of configMaps, secrets, namespaces, leases and customResourceDefinitions: the root re-exports the very same values', () => {
    const shared = Object.keys(resources).filter((n) => n in root);
    expect(shared.sort()).toEqual(['configMaps', 'customResourceDefinitions', 'leases', 'namespaces', 'secrets']);
    for (const n of shared) expect(root[n as keyof typeof root], n).toBe(resources[n as keyof typeof resources]);
  });

  it('types objects as KubeObjects, and the root names the very same ConfigMap, Secret, Namespace, Lease and LabelSelector', () => {
    expectTypeOf<Deployment>().toExtend<KubeObject>();
    expectTypeOf<RootConfigMap>().toEqualTypeOf<ConfigMap>();
    expectTypeOf<RootSecret>().toEqualTypeOf<Secret>();
    expectTypeOf<RootNamespace>().toEqualTypeOf<Namespace>();
    expectTypeOf<RootLease>().toEqualTypeOf<Lease>();
    expectTypeOf<RootLabelSelector>().toEqualTypeOf<LabelSelector>();
    expect(descriptors.length).toBeGreaterThan(30);
  });

  it('shows a valid value of each type in its @example', { timeout: 120_000 }, () => {
    const snippets: string[] = [];
    for (const f of files(dir)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/@example `const x: (\w+) = (.*?);` \*\//g)) snippets.push(`export const ${m[1] ?? ''}Example: R.${m[1] ?? ''} = ${m[2] ?? ''};`);
    }
    expect(snippets.length).toBeGreaterThan(300);
    const errors = typeErrors({ 'test/unit/virtual-resource-examples.ts': ["import type * as R from '../../src/resources/index.js';", ...snippets].join('\n') });
    expect(errors).toEqual([]);
  });
});
