// @kubernetes/client-node is an optional peer dependency of rxfleet: only a kubeconfig whose user has
// a legacy auth-provider needs it. Without it (an import that fails, injected: the package stays
// installed for the other tests), that cluster's requests fail naming the cluster, the user, its
// auth-provider and the package to install, and a cluster with a token keeps its credentials.
import { describe, expect, it } from 'vitest';
import { kubeconfigAuth } from '../../src/client/auth.js';
import type { LoadedKubeconfig } from '../../src/client/index.js';
import { clientOver, createTransport, loadKubeconfig } from '../../src/client/index.js';
import type { ClientNodeLoader, ClientNodeModule } from '../../src/client/kubeconfig-auth-provider.js';
import { E } from '../../src/fp/index.js';
import { clusterName, configMaps } from '../../src/index.js';

/** A real import of a package that is not installed: what rxfleet's import of client-node does without it. */
const absent = '@rxfleet/not-installed-client-node';
const notInstalled: ClientNodeLoader = () => import(absent) as Promise<ClientNodeModule>;

function loaded(cluster: string, user: Record<string, unknown>): LoadedKubeconfig {
  const yaml = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'main',
    // Port 1: nothing listens; a request that got past its credentials would fail differently.
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
    contexts: [{ name: 'main', context: { cluster: 'c', user: 'u' } }],
    users: [{ name: 'u', user }],
  });
  const kc = loadKubeconfig(clusterName(cluster), { yaml });
  if (E.isLeft(kc)) throw new Error(kc.left.message);
  return kc.right;
}

const oidc = { 'auth-provider': { name: 'oidc', config: { 'id-token': 'not-a-real-token', 'client-id': 'fleet' } } };
const install = 'npm install @kubernetes/client-node';

describe('a legacy auth-provider kubeconfig without @kubernetes/client-node', () => {
  it('gets credentials rejected with what to install, naming the user and its auth-provider; the next call tries again', async () => {
    let loads = 0;
    const auth = kubeconfigAuth(loaded('legacy', oidc), () => {
      loads++;
      return notInstalled();
    });
    const first = auth.credentials();
    await expect(first).rejects.toThrow(
      'kubeconfig user "u" uses the legacy auth-provider "oidc", which needs @kubernetes/client-node (an optional peer dependency of rxfleet), which is not installed: npm install @kubernetes/client-node',
    );
    await expect(auth.credentials()).rejects.toThrow(install);
    expect(loads).toBe(2);
  });

  it("fails that cluster's requests with the cluster's name; a token cluster never loads the package", async () => {
    let loads = 0;
    const counting: ClientNodeLoader = () => {
      loads++;
      return notInstalled();
    };
    const legacy = clientOver(createTransport(clusterName('legacy'), 'https://127.0.0.1:1', kubeconfigAuth(loaded('legacy', oidc), counting)));
    const listed = await legacy.list(configMaps, { namespace: 'default' });
    expect(E.isLeft(listed) && listed.left).toMatchObject({ type: 'Unauthorized', cluster: 'legacy' });
    expect(E.isLeft(listed) && listed.left.message).toMatch(/^cluster "legacy" GET \/api\/v1\/namespaces\/default\/configmaps: could not obtain credentials: kubeconfig user "u" uses the legacy auth-provider "oidc"/);
    expect(E.isLeft(listed) && listed.left.message).toContain(install);
    legacy.close();

    const tokenAuth = kubeconfigAuth(loaded('east', { token: 'east-token' }), counting);
    expect((await tokenAuth.credentials()).headers.Authorization).toBe('Bearer east-token');
    expect(loads).toBe(1);
  });

  it('says what did not load when the package is there but fails to load', async () => {
    const broken: ClientNodeLoader = () => Promise.reject(new Error('SyntaxError in client-node\n    at somewhere'));
    await expect(kubeconfigAuth(loaded('legacy', oidc), broken).credentials()).rejects.toThrow(
      /needs @kubernetes\/client-node \(an optional peer dependency of rxfleet\), which did not load \(SyntaxError in client-node\): npm install @kubernetes\/client-node/,
    );
  });
});
