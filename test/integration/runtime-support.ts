// Helpers of the runtime and examples integration tests: places to work on the shared servers,
// clients from kubeconfig text, polling, and HTTP reads of a run's probe server.
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';

export { randomName } from './targets.js';

export function clientFrom(name: string, yaml: string): ClusterClient {
  const c = createClusterClient(clusterName(name), { yaml });
  if (E.isLeft(c)) throw new Error(c.left.message);
  return c.right;
}

export function clusterFrom(name: string, yaml: string, labels?: Readonly<Record<string, string>>): Cluster {
  const client = clientFrom(name, yaml);
  return labels === undefined ? { name: client.cluster, client } : { name: client.cluster, client, labels };
}

/** A fresh kcp workspace as a cluster named by its path (`root:<name>`), with its kubeconfig text. */
export async function workspaceCluster(labels?: Readonly<Record<string, string>>): Promise<{ cluster: Cluster; yaml: string; name: ClusterName }> {
  const ws = await sharedKcp().createWorkspace();
  const yaml = ws.kubeconfigYaml();
  const cluster = clusterFrom(ws.path, yaml, labels);
  return { cluster, yaml, name: cluster.name };
}

/** The shared kube-apiserver as a cluster, with a fresh namespace to work in. */
export async function kubeApiserverCluster(name = 'kube-apiserver'): Promise<{ cluster: Cluster; yaml: string; namespace: string }> {
  const server = sharedKubeApiserver();
  const namespace = await server.createNamespace('rt');
  const yaml = server.kubeconfigYaml('admin');
  return { cluster: clusterFrom(name, yaml), yaml, namespace };
}



export async function httpGet(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}
