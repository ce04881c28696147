// Transport safety against a real kube-apiserver: TLS cannot be turned off by the environment,
// credentials and connection failures give errors that name the cluster and the cause.
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, namespaces } from '../../src/index.js';
import { reservePorts } from '../support/ports.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';

function rewrite(yaml: string, change: (cluster: Record<string, unknown>) => Record<string, unknown>): string {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  const c = kc.getCurrentCluster();
  const u = kc.getCurrentUser();
  if (c === null || u === null) throw new Error('kubeconfig without cluster or user');
  const out = new KubeConfig();
  out.loadFromClusterAndUser(change({ ...c }) as unknown as typeof c, u);
  return out.exportConfig();
}

describe('transport safety', () => {
  const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
  });

  it('keeps TLS verification on when NODE_TLS_REJECT_UNAUTHORIZED=0 and the CA is wrong', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const kcpCa = sharedKcp().adminKubeConfig().getCurrentCluster()?.caData;
    expect(kcpCa).toBeTruthy();
    // kube-apiserver's kubeconfig with kcp's CA: the server's certificate must not verify.
    const yaml = rewrite(sharedKubeApiserver().kubeconfigYaml('admin'), (c) => ({ ...c, caData: kcpCa, caFile: undefined }));
    const client = createClusterClient(clusterName('wrong-ca'), { yaml });
    if (E.isLeft(client)) throw new Error(client.left.message);
    const r = await client.right.list(namespaces);
    expect(E.isLeft(r) && r.left.type).toBe('Tls');
    expect(E.isLeft(r) && r.left.message).toContain('cluster "wrong-ca"');
    client.right.close();
  });

  it('keeps TLS verification on when NODE_TLS_REJECT_UNAUTHORIZED=0 and no CA is given', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const yaml = rewrite(sharedKubeApiserver().kubeconfigYaml('admin'), (c) => ({ ...c, caData: undefined, caFile: undefined }));
    const client = createClusterClient(clusterName('no-ca'), { yaml });
    if (E.isLeft(client)) throw new Error(client.left.message);
    const r = await client.right.list(namespaces);
    expect(E.isLeft(r) && r.left.type).toBe('Tls');
    client.right.close();
  });

  it('skips verification only when the kubeconfig itself says insecure-skip-tls-verify', async () => {
    const yaml = rewrite(sharedKubeApiserver().kubeconfigYaml('admin'), (c) => ({ ...c, caData: undefined, caFile: undefined, skipTLSVerify: true }));
    const client = createClusterClient(clusterName('insecure-by-choice'), { yaml });
    if (E.isLeft(client)) throw new Error(client.left.message);
    const r = await client.right.list(namespaces, { limit: 1 });
    expect(E.isRight(r)).toBe(true);
    client.right.close();
  });

  it('reports an unreachable server as ClusterUnreachable, naming the cluster', async () => {
    // Reserved: nothing listens on it, and nothing else is given it while the test runs.
    const nowhere = await reservePorts(1);
    try {
      const yaml = rewrite(sharedKubeApiserver().kubeconfigYaml('admin'), (c) => ({ ...c, server: `https://127.0.0.1:${nowhere.ports[0] ?? 0}` }));
      const client = createClusterClient(clusterName('nowhere'), { yaml });
      if (E.isLeft(client)) throw new Error(client.left.message);
      const r = await client.right.list(namespaces);
      expect(E.isLeft(r) && r.left.type).toBe('ClusterUnreachable');
      expect(E.isLeft(r) && r.left.message).toMatch(/^cluster "nowhere" GET \/api\/v1\/namespaces: cannot reach the API server \(ECONNREFUSED\)/);
      client.right.close();
    } finally {
      nowhere.release();
    }
  });

  it('never shares credentials: two clusters from one KubeConfig object keep their own copies', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sharedKubeApiserver().kubeconfigYaml('admin'));
    const a = createClusterClient(clusterName('a'), { loaded: kc });
    if (E.isLeft(a)) throw new Error(a.left.message);
    // Mutating the caller's KubeConfig after the fact must not reach the client already built.
    kc.users.splice(0, kc.users.length, { name: kc.users[0]?.name ?? 'u', token: 'garbage' });
    const r = await a.right.list(namespaces, { limit: 1 });
    expect(E.isRight(r)).toBe(true);
    a.right.close();
  });
});
