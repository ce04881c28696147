// Helpers of the streams integration tests: clients from kubeconfig text, bulk ConfigMap writes at
// bounded concurrency, bounded polling, and comparing a store with a fresh list.
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import type { StoreView } from '../../src/streams/index.js';
import { pool } from '../support/pool.js';
import { eventually, retrying } from '../support/wait.js';

export { pool };

export function clusterFrom(name: string, yaml: string): Cluster {
  const c = createClusterClient(clusterName(name), { yaml });
  if (E.isLeft(c)) throw new Error(c.left.message);
  return { name: c.right.cluster, client: c.right };
}

export function configMap(name: string, namespace: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace }, data };
}

/** name → resourceVersion of every ConfigMap of `namespace` in the store (for one cluster). */
export function storeState(store: StoreView<ConfigMap>, namespace: string): Map<string, string> {
  return new Map(store.byIndex('namespace', namespace).map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

/** name → resourceVersion of a fresh (consistent) list. */
export async function listState(client: ClusterClient, namespace: string, labelSelector?: string): Promise<Map<string, string>> {
  const list = await retrying('list', () => client.listAll(configMaps, { namespace, ...(labelSelector === undefined ? {} : { labelSelector }) }));
  return new Map(list.items.map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

export function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Waits until the store equals a fresh list of the namespace (both read again at each poll). */
export async function storeMatchesServer(store: StoreView<ConfigMap>, client: ClusterClient, namespace: string, timeoutMs = 60_000, labelSelector?: string): Promise<void> {
  let last = '';
  await eventually(
    `the store to equal a fresh list of ${namespace}`,
    async () => {
      const server = await listState(client, namespace, labelSelector);
      const cached = storeState(store, namespace);
      last = `store ${cached.size} objects, server ${server.size}`;
      return sameState(server, cached);
    },
    { timeoutMs, intervalMs: 250, context: () => last },
  );
}

export type { ClusterName };
