// The Lease layer against a real kube-apiserver: two keepers compete for one Lease and exactly one
// holds it; a release hands it over at once; a member Lease is deleted on release; and the start-up
// check turns a missing namespace, RBAC without Lease rights, and an unreachable home cluster into
// ConfigErrors that name the cluster, namespace, verb and cause, leaving no Lease behind.
import { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { ConfigError } from '../../src/core/config-error.js';
import { E } from '../../src/fp/index.js';
import type { Cluster } from '../../src/index.js';
import { leases } from '../../src/index.js';
import { checkLeaseAccess } from '../../src/runtime/ha/lease-access.js';
import type { LeaseKeeper, LeaseState } from '../../src/runtime/ha/lease-keeper.js';
import { leaseKeeper } from '../../src/runtime/ha/lease-keeper.js';
import { leaseTiming } from '../../src/runtime/ha/lease-timing.js';
import { sharedKubeApiserver } from '../support/context.js';
import { reservePorts } from '../support/ports.js';
import { clusterFrom, kubeApiserverCluster, randomName } from './runtime-support.js';
import { eventually, must } from '../support/wait.js';

// Short, but with a lease duration long enough that "handed over at once" cannot be expiry.
const timing = leaseTiming({ leaseDurationMs: 10_000, renewDeadlineMs: 5_000, retryPeriodMs: 500 });

/** The kubeconfig `yaml` pointed at another server and/or authenticated with a bearer token. */
function kubeconfigWith(yaml: string, change: { server?: string; token?: string }): string {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster === null || user === null) throw new Error('kubeconfig without a cluster or user');
  const out = new KubeConfig();
  out.loadFromClusterAndUser({ ...cluster, server: change.server ?? cluster.server }, change.token === undefined ? user : { name: 'sa', token: change.token });
  return out.exportConfig();
}

/** A ServiceAccount of `namespace` allowed `verbs` on leases there (nothing when empty), as a cluster. */
async function serviceAccount(admin: ClusterClient, yaml: string, namespace: string, verbs: readonly string[]): Promise<Cluster> {
  const sa = randomName('sa');
  const post = async (path: string, body: object): Promise<unknown> => must(await admin.raw({ method: 'POST', path, body: JSON.stringify(body) }));
  await post(`/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } });
  if (verbs.length > 0) {
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
    await post(`${rbac}/roles`, { metadata: { name: sa }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs }] });
    await post(`${rbac}/rolebindings`, {
      metadata: { name: sa },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sa },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
    });
  }
  const token = (await post(`/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } })) as {
    status?: { token?: string };
  };
  if (token.status?.token === undefined) throw new Error('TokenRequest returned no token');
  const cluster = clusterFrom('home', kubeconfigWith(yaml, { token: token.status.token }));
  // RBAC is read from an informer: wait until the grant is in effect, so the check sees it.
  if (verbs.includes('get')) {
    await eventually('the Role to take effect', async () => {
      const r = await cluster.client.get(leases, 'absent', { namespace });
      return E.isLeft(r) && r.left.type === 'Forbidden' ? undefined : true;
    }, { timeoutMs: 10_000 });
  }
  return cluster;
}

const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => 'resolved', (e: unknown) => e);

describe('Leases on a real kube-apiserver', () => {
  let home: Cluster;
  let yaml: string;
  let namespace: string;
  const closers: (() => void)[] = [];
  beforeAll(async () => {
    ({ cluster: home, yaml, namespace } = await kubeApiserverCluster('home'));
    closers.push(() => { home.client.close(); });
  });
  afterAll(() => {
    for (const close of closers) close();
  });

  const keep = (name: string, identity: string, mode: 'leader' | 'member'): { keeper: LeaseKeeper; states: LeaseState[]; sub: Subscription } => {
    const keeper = leaseKeeper({ client: home.client, namespace, name, identity, timing, mode });
    const states: LeaseState[] = [];
    const sub = keeper.states.subscribe((s) => states.push(s));
    closers.push(() => { sub.unsubscribe(); });
    return { keeper, states, sub };
  };

  it('lets exactly one of two competing keepers hold the Lease, and hands it over at once on release', async () => {
    const name = randomName('leader');
    const a = keep(name, 'replica-a', 'leader');
    const b = keep(name, 'replica-b', 'leader');
    await eventually('a holder', () => (a.keeper.valid() || b.keeper.valid() ? true : undefined), { timeoutMs: 20_000 });
    // Across eight renews seen on the server, at every look: never both and never neither.
    const renews = new Set<string>();
    await eventually(
      'eight renews of the Lease',
      async () => {
        expect([a.keeper.valid(), b.keeper.valid()].filter(Boolean)).toHaveLength(1);
        renews.add(must(await home.client.get(leases, name, { namespace })).metadata.resourceVersion ?? '');
        return renews.size > 8;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const [holder, standby] = a.keeper.valid() ? [a, b] : [b, a];
    const onServer = must(await home.client.get(leases, name, { namespace }));
    expect(onServer.spec).toMatchObject({ holderIdentity: holder === a ? 'replica-a' : 'replica-b', leaseDurationSeconds: 10, leaseTransitions: 0 });
    expect(standby.states.filter((s) => s.type === 'held')).toEqual([]);

    await holder.keeper.release();
    expect(holder.keeper.valid()).toBe(false);
    expect(holder.states.at(-1)).toMatchObject({ type: 'lost', reason: expect.stringContaining('released') as string });
    await eventually('the standby to take over', () => (standby.keeper.valid() ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    const after = must(await home.client.get(leases, name, { namespace }));
    expect(after.spec).toMatchObject({ holderIdentity: standby === a ? 'replica-a' : 'replica-b', leaseTransitions: 1 });
    // Taken on the release, not on expiry: the held Lease, renewed at onServer's renewTime or later,
    // could not have expired before that renew plus its 10 s, and the standby acquired it earlier.
    const renewedAt = Date.parse(onServer.spec?.renewTime ?? '');
    expect(Date.parse(after.spec?.acquireTime ?? '')).toBeLessThan(renewedAt + timing.leaseDurationMs);
    standby.sub.unsubscribe();
  });

  it('deletes a member Lease on release', async () => {
    const name = randomName('member');
    const m = keep(name, 'replica-m', 'member');
    await eventually('the member Lease held', () => (m.keeper.valid() ? true : undefined), { timeoutMs: 20_000 });
    m.keeper.annotate({ 'rxfleet.io/acknowledged-view': 'v1' });
    await eventually('the annotation published', async () => {
      const l = await home.client.get(leases, name, { namespace });
      return E.isRight(l) && l.right.metadata.annotations?.['rxfleet.io/acknowledged-view'] === 'v1' ? true : undefined;
    }, { timeoutMs: 5_000, intervalMs: 50 });
    await m.keeper.release();
    const gone = await home.client.get(leases, name, { namespace });
    expect(E.isLeft(gone) && gone.left.type).toBe('NotFound');
  });

  it('passes the access check with full rights and leaves no Lease behind', async () => {
    const ns = await sharedKubeApiserver().createNamespace('lease-check');
    await checkLeaseAccess(home, ns, 'my-controller', { verbs: ['get', 'list', 'create', 'update', 'delete'] });
    expect(must(await home.client.list(leases, { namespace: ns })).items).toEqual([]);
  });

  it('refuses a missing Lease namespace with a ConfigError naming it and the cluster', async () => {
    const missing = randomName('nowhere');
    const err = await failure(checkLeaseAccess(home, missing, 'my-controller'));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`Lease namespace "${missing}" does not exist on cluster "home"`);
  });

  it('refuses an identity without Lease rights with a ConfigError naming the verb, resource, namespace and cluster', async () => {
    const none = await serviceAccount(home.client, yaml, namespace, []);
    const readOnly = await serviceAccount(home.client, yaml, namespace, ['get', 'create']);
    closers.push(() => { none.client.close(); }, () => { readOnly.client.close(); });
    const noRights = await failure(checkLeaseAccess(none, namespace, 'my-controller'));
    expect(noRights).toBeInstanceOf(ConfigError);
    expect((noRights as Error).message).toContain(`cluster "home" forbids "create" on leases.coordination.k8s.io in namespace "${namespace}"`);
    const noUpdate = await failure(checkLeaseAccess(readOnly, namespace, 'my-controller'));
    expect((noUpdate as Error).message).toContain(`cluster "home" forbids "update" on leases.coordination.k8s.io in namespace "${namespace}"`);
    expect(must(await home.client.list(leases, { namespace })).items.map((l) => l.metadata.name)).not.toContain('my-controller');
  });

  it('refuses an unreachable home cluster with a ConfigError naming the cluster and the cause', async () => {
    // Reserved: nothing listens on it, and nothing else is given it while the test runs.
    const nowhere = await reservePorts(1);
    const gone = clusterFrom('gone', kubeconfigWith(yaml, { server: `https://127.0.0.1:${nowhere.ports[0] ?? 0}` }));
    closers.push(() => { gone.client.close(); }, () => { nowhere.release(); });
    const err = await failure(checkLeaseAccess(gone, namespace, 'my-controller', { timeoutMs: 5_000 }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/cannot check the Lease namespace ".*" on cluster "gone" \(ClusterUnreachable\): .*ECONNREFUSED/);
  });
});
