// The two kinds of real server every client-level test runs against, behind one shape: a fresh,
// isolated place to work (a kcp workspace, or a kube-apiserver namespace) with admin and limited
// credentials.
import { randomBytes } from 'node:crypto';
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { clusterName, customResourceDefinitions, resource } from '../../src/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';

export interface Sandbox {
  readonly cluster: ClusterName;
  /** Admin kubeconfig (YAML/JSON text) for this sandbox's server URL. */
  readonly kubeconfig: string;
  /** A namespace the test owns. */
  readonly namespace: string;
  /** Admin client. */
  readonly client: ClusterClient;
  /** A kubeconfig for an identity with no rights at all. */
  limitedKubeconfig(): Promise<string>;
}

export interface Target {
  readonly name: 'kcp' | 'kube-apiserver';
  sandbox(): Promise<Sandbox>;
}

export function randomName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

function mustClient(cluster: ClusterName, yaml: string): ClusterClient {
  const c = createClusterClient(cluster, { yaml });
  if (E.isLeft(c)) throw new Error(c.left.message);
  return c.right;
}

/** Replaces the user of a kubeconfig (JSON or YAML text parsed by client-node) with a bearer token. */
async function withToken(yaml: string, token: string): Promise<string> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig without a cluster');
  const limited = new KubeConfig();
  limited.loadFromClusterAndUser(cluster, { name: 'limited', token });
  return limited.exportConfig();
}

export const kcpTarget: Target = {
  name: 'kcp',
  async sandbox() {
    const ws = await sharedKcp().createWorkspace();
    const kubeconfig = ws.kubeconfigYaml();
    const cluster = clusterName(ws.path);
    const client = mustClient(cluster, kubeconfig);
    return {
      cluster,
      kubeconfig,
      namespace: 'default',
      client,
      async limitedKubeconfig() {
        // A ServiceAccount of the workspace with no role bindings: authenticated, allowed nothing.
        const sa = randomName('limited');
        const created = await client.raw({
          method: 'POST',
          path: '/api/v1/namespaces/default/serviceaccounts',
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } }),
        });
        if (E.isLeft(created)) throw new Error(created.left.message);
        const token = await client.raw({
          method: 'POST',
          path: `/api/v1/namespaces/default/serviceaccounts/${sa}/token`,
          body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } }),
        });
        if (E.isLeft(token)) throw new Error(token.left.message);
        const value = (token.right as { status?: { token?: string } }).status?.token;
        if (value === undefined) throw new Error('TokenRequest returned no token');
        return withToken(kubeconfig, value);
      },
    };
  },
};

export const kubeApiserverTarget: Target = {
  name: 'kube-apiserver',
  async sandbox() {
    const server = sharedKubeApiserver();
    const namespace = await server.createNamespace();
    const kubeconfig = server.kubeconfigYaml('admin');
    const cluster = clusterName('kube-apiserver');
    return {
      cluster,
      kubeconfig,
      namespace,
      client: mustClient(cluster, kubeconfig),
      limitedKubeconfig: () => Promise.resolve(server.kubeconfigYaml('limited')),
    };
  },
};

export const targets: readonly Target[] = [kcpTarget, kubeApiserverTarget];

export interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean; note?: string };
}

/** Creates a namespaced `widgets` CRD (status subresource on) in a fresh group and waits until it is served. */
export async function widgetsCrd(client: ClusterClient, namespace: string): Promise<ResourceDescriptor<Widget>> {
  const group = `${randomName('s')}.rxfleet.dev`;
  const widgets = resource<Widget>({ group, version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
  must(
    await client.apply(
      customResourceDefinitions,
      {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { size: { type: 'integer' } } },
                    status: { type: 'object', properties: { ready: { type: 'boolean' }, note: { type: 'string' } } },
                  },
                },
              },
            },
          ],
        },
      },
      { fieldManager: 'rxfleet-test' },
    ),
  );
  await eventually('the widgets resource to be served', async () => {
    const r = await client.list(widgets, { namespace, limit: 1 });
    return E.isRight(r) ? true : r.left.type === 'NotFound' ? undefined : Promise.reject(new Error(r.left.message));
  });
  return widgets;
}
