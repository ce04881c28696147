// What the initializing-workspaces tests do on kcp: a WorkspaceType with an initializer, workspaces
// of that type (on a shard, if asked), the wait until one is Ready, and an initializer that sets up
// every workspace the fleet engages (a `welcome` namespace and ConfigMap) and then releases it.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { mergeMap } from 'rxjs';
import { E } from '../../src/fp/index.js';
import type { Cluster } from '../../src/index.js';
import { configMaps, namespaces } from '../../src/index.js';
import { finishInitialization, initializerLabel } from '../../src/providers/kcp/index.js';
import type { Fleet } from '../../src/streams/index.js';
import type { JsonResponse } from './http.js';
import { requestJson, stringField } from './http.js';
import { eventually } from './wait.js';

/**
 * Creates a WorkspaceType with an initializer (extending root's universal type).
 *
 * @example
 * ```ts
 * expect((await createInitializerType(homeKc(), 'tenant')).status).toBe(201);
 * ```
 * @param kc - the workspace the type lives in.
 * @param name - the type's name.
 * @returns kcp's answer.
 */
export function createInitializerType(kc: KubeConfig, name: string): Promise<JsonResponse> {
  return requestJson(kc, 'POST', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name },
    spec: { initializer: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
  });
}

/**
 * Creates a workspace of a type, on the shard named `shard` if given.
 *
 * @example
 * ```ts
 * expect((await createTypedWorkspace(homeKc(), 'init-a', { name: 'tenant', path: home.path })).status).toBe(201);
 * ```
 * @param kc - the parent workspace.
 * @param name - the new workspace's name.
 * @param type - the WorkspaceType's name and the path of the workspace it lives in.
 * @param shard - the shard's name (its `name` label).
 * @returns kcp's answer.
 */
export function createTypedWorkspace(kc: KubeConfig, name: string, type: { readonly name: string; readonly path: string }, shard?: string): Promise<JsonResponse> {
  const location = shard === undefined ? {} : { location: { selector: { matchLabels: { name: shard } } } };
  return requestJson(kc, 'POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: { type, ...location } });
}

/**
 * Waits until the workspace is Ready.
 *
 * @example
 * ```ts
 * const logical = await workspaceReady(homeKc(), 'init-a', 90_000);
 * ```
 * @param kc - the parent workspace.
 * @param name - the workspace's name.
 * @param timeoutMs - how long to wait.
 * @returns its logical cluster (`spec.cluster`).
 */
export function workspaceReady(kc: () => KubeConfig, name: string, timeoutMs: number): Promise<string> {
  return eventually(`${name} Ready`, async () => {
    const res = await requestJson(kc(), 'GET', `/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`);
    return stringField(res.body, 'status', 'phase') === 'Ready' ? stringField(res.body, 'spec', 'cluster') : undefined;
  }, { timeoutMs });
}

/** What the welcome initializer saw. */
export interface Welcomed {
  /** The workspaces engaged, in order. */
  readonly engaged: readonly Cluster[];
  /** The names of the workspaces it released. */
  readonly finished: string[];
  /** What failed. */
  readonly errors: readonly unknown[];
  readonly subscription: Subscription;
}

/**
 * Sets up every workspace the fleet engages: its own `welcome` namespace (`default` is made by
 * root's universal initializer, which may run after this one) with a `welcome` ConfigMap naming the
 * workspace; then finishes its initialization.
 *
 * @example
 * ```ts
 * const w = welcomeEach(createFleet(initializingWorkspaceProvider({ ... })));
 * w.subscription.unsubscribe();
 * ```
 * @param fleet - the initializing provider's fleet.
 * @returns what it saw, and its subscription.
 */
export function welcomeEach(fleet: Fleet): Welcomed {
  const engaged: Cluster[] = [];
  const finished: string[] = [];
  const errors: unknown[] = [];
  const subscription = fleet.engagements
    .pipe(
      mergeMap(async ({ cluster }) => {
        engaged.push(cluster);
        const ns = await cluster.client.create(namespaces, { metadata: { name: 'welcome' } });
        if (E.isLeft(ns) && ns.left.type !== 'AlreadyExists') throw new Error(ns.left.message);
        const cm = await cluster.client.create(configMaps, { metadata: { name: 'welcome', namespace: 'welcome' }, data: { workspace: cluster.name } });
        if (E.isLeft(cm) && cm.left.type !== 'AlreadyExists') throw new Error(cm.left.message);
        const r = await finishInitialization(cluster, cluster.labels?.[initializerLabel] ?? '');
        if (E.isLeft(r)) throw new Error(r.left.message);
        finished.push(cluster.name);
      }),
    )
    .subscribe({ error: (err: unknown) => errors.push(err) });
  return { engaged, finished, errors, subscription };
}
