// A fleet where one kubeconfig has a legacy auth-provider and @kubernetes/client-node is not
// installed (an import that fails, injected: the package stays installed for the other tests): that
// cluster is unhealthy with an error naming it and the package to install; the other cluster, on
// the same real kube-apiserver, is watched and reconciled as usual.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeconfigAuth } from '../../src/client/auth.js';
import { clientOver, createTransport, loadKubeconfig } from '../../src/client/index.js';
import type { ClientNodeLoader, ClientNodeModule } from '../../src/client/kubeconfig-auth-provider.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, run } from '../../src/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { eventually, must } from '../support/wait.js';
import { kubeApiserverCluster, randomName } from './runtime-support.js';

const absent = '@rxfleet/not-installed-client-node';
const notInstalled: ClientNodeLoader = () => import(absent) as Promise<ClientNodeModule>;

const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

/** The same server as `yaml`, as a cluster whose user is an oidc auth-provider, with client-node not installed. */
function legacyCluster(name: string, yaml: string): Cluster {
  const kc = loadKubeconfig(clusterName(name), { yaml });
  if (E.isLeft(kc)) throw new Error(kc.left.message);
  const user = { name: 'oidc-user', authProvider: { name: 'oidc', config: { 'id-token': 'not-a-real-token', 'client-id': 'fleet' } } };
  const auth = kubeconfigAuth({ ...kc.right, user }, notInstalled);
  const client = clientOver(createTransport(clusterName(name), kc.right.cluster.server, auth));
  return { name: client.cluster, client };
}

describe('@kubernetes/client-node, an optional peer dependency', () => {
  it('is missed by the auth-provider cluster only, which says what to install; the other cluster is reconciled', async () => {
    const { cluster: good, yaml, namespace } = await kubeApiserverCluster('token-cluster');
    const legacy = legacyCluster('oidc-cluster', yaml);
    const name = randomName('cm');
    must(await good.client.apply(configMaps, { metadata: { name, namespace } }, { fieldManager: 'test' }));
    const seen: string[] = [];
    const c = controller<ConfigMap>({
      name: randomName('optional-peer'),
      provider: staticProvider([good, legacy]),
      resource: configMaps,
      select: { namespace },
      reconcile: (req) => {
        seen.push(`${req.cluster}/${req.key.name}`);
        return done();
      },
    });
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: { port: 0 } });
    handles.push(handle);
    await eventually('the token cluster\'s ConfigMap to be reconciled', () => (seen.includes(`token-cluster/${name}`) ? true : undefined));
    const unhealthy = await eventually('the oidc cluster to be reported unhealthy', () => handle.health.report().clusters.find((h) => h.cluster === legacy.name && h.state === 'unhealthy'));
    expect(unhealthy.reason).toContain('cluster "oidc-cluster"');
    expect(unhealthy.reason).toContain('kubeconfig user "oidc-user" uses the legacy auth-provider "oidc", which needs @kubernetes/client-node');
    expect(unhealthy.reason).toContain('npm install @kubernetes/client-node');
    expect(handle.health.report().clusters.find((h) => h.cluster === good.name)).toMatchObject({ state: 'synced' });
    expect(seen.filter((s) => s.startsWith('oidc-cluster/'))).toEqual([]);
  });
});
