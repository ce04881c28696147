// The examples, built and run with plain `node` against the shared kcp and kube-apiserver, each to
// its expected end state, then stopped with SIGTERM (exit code 0: nothing was cut).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject } from '../../src/index.js';
import { configMaps, namespaces } from '../../src/index.js';
import { BASELINE, roles } from '../../examples/uniform-baseline/controller.js';
import { FINALIZER } from '../../examples/fanout-status/controller.js';
import { SETTINGS } from '../../examples/namespaces-local/controller.js';
import type { Rollout } from '../../examples/fanout-status/rollout.js';
import { rollouts } from '../../examples/fanout-status/rollout.js';
import type { Running } from './examples-support.js';
import { buildExamples, kubeconfigFile, startExample, terminate } from './examples-support.js';
import { clientFrom, kubeApiserverCluster, randomName, workspaceCluster } from './runtime-support.js';
import { eventually, must } from '../support/wait.js';

const running: Running[] = [];
beforeAll(async () => {
  await buildExamples();
});
afterAll(async () => {
  await Promise.all(running.map((r) => terminate(r, 5_000)));
});

function launch(example: string, args: readonly string[], env: Record<string, string> = {}): Running {
  const r = startExample(example, args, env);
  running.push(r);
  return r;
}

const get = async <T extends KubeObject>(client: ClusterClient, r: Parameters<ClusterClient['get']>[0], name: string, namespace: string): Promise<T | undefined> => {
  const got = await client.get(r, name, { namespace });
  return E.isRight(got) ? (got.right as T) : undefined;
};

describe('example: hello', () => {
  it('answers a greeting in every cluster', async () => {
    const ws = await workspaceCluster();
    const r = launch('hello', ['default', kubeconfigFile(ws.yaml)]);
    must(await ws.cluster.client.apply(configMaps, { metadata: { name: 'greeting', namespace: 'default' } }, { fieldManager: 'test' }));
    await eventually('the reply', async () => ((await get<ConfigMap>(ws.cluster.client, configMaps, 'greeting', 'default'))?.data?.reply === 'hello from cluster-0' ? true : undefined));
    expect(await terminate(r)).toBe(0);
  });
});

describe('example: uniform-baseline', () => {
  it('creates the baseline in every cluster, reverts drift, and exits 0 on SIGTERM', async () => {
    const [a, b] = await Promise.all([workspaceCluster(), workspaceCluster()]);
    const kas = await kubeApiserverCluster();
    const namespace = randomName('baseline');
    const all = [
      { name: 'ws-a', client: a.cluster.client, yaml: a.yaml },
      { name: 'ws-b', client: b.cluster.client, yaml: b.yaml },
      { name: 'kas', client: kas.cluster.client, yaml: kas.yaml },
    ];
    const r = launch('uniform-baseline', [...all.flatMap((c) => ['--cluster', `${c.name}=${kubeconfigFile(c.yaml)}`]), '--namespace', namespace]);
    const present = async (c: ClusterClient) => (await get<ConfigMap>(c, configMaps, BASELINE, namespace))?.data?.owner === 'platform-team' && (await get(c, roles, BASELINE, namespace)) !== undefined;
    for (const c of all) await eventually(`the baseline in ${c.name} (output so far:\n${r.output()})`, async () => ((await present(c.client)) ? true : undefined));

    // Drift: someone edits the settings in one cluster and deletes the Role in another.
    const [first, , last] = all as [(typeof all)[0], (typeof all)[0], (typeof all)[0]];
    must(await first.client.apply(configMaps, { metadata: { name: BASELINE, namespace }, data: { owner: 'someone-else' } }, { fieldManager: 'kubectl-edit', force: true }));
    must(await last.client.delete(roles, BASELINE, { namespace }));
    for (const c of all) await eventually(`the baseline restored in ${c.name}`, async () => ((await present(c.client)) ? true : undefined));

    expect(await terminate(r)).toBe(0);
    const out = r.output();
    expect(out).toContain('"msg":"baseline restored"');
    expect(out).toContain('"msg":"stopped: every in-flight reconcile finished"');
    expect(out).not.toMatch(/"token"|Bearer [A-Za-z0-9]/);
  });

  it('refuses a kubeconfig that cannot work, with exit code 2 and what to fix', async () => {
    const r = launch('uniform-baseline', ['--cluster', 'broken=/nonexistent/kubeconfig']);
    expect(await r.exited).toBe(2);
    expect(r.output()).toContain('configuration error: --cluster broken: cluster "broken": invalid kubeconfig /nonexistent/kubeconfig: file not found');
  });
});

describe('a misconfigured provider run through main', () => {
  it('logs a warning naming the kubeconfig and the cause, with no extra option, while the good cluster works', async () => {
    const ws = await workspaceCluster();
    const missing = '/nonexistent/rxfleet/east.kubeconfig';
    // hello passes its kubeconfig paths to the clusters provider and nothing else: no report or logger option.
    const r = launch('hello', ['default', kubeconfigFile(ws.yaml), missing]);
    const warning = await eventually(`the provider's warning (output so far:\n${r.output()})`, () =>
      r.output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'provider: candidate skipped'));
    expect(warning).toMatchObject({ level: 40, provider: 'clusters', candidate: 'cluster-1' });
    expect(String(warning.reason)).toContain(missing);
    expect(String(warning.reason)).toContain('file not found');
    // The other cluster keeps working.
    must(await ws.cluster.client.apply(configMaps, { metadata: { name: 'greeting', namespace: 'default' } }, { fieldManager: 'test' }));
    await eventually('the reply', async () => ((await get<ConfigMap>(ws.cluster.client, configMaps, 'greeting', 'default'))?.data?.reply === 'hello from cluster-0' ? true : undefined));
    expect(await terminate(r)).toBe(0);
  });
});

describe('example: fanout-status', () => {
  it('fans a hub Rollout out to matching members, aggregates their status, and cleans up on delete', async () => {
    const [hub, east, west] = await Promise.all([workspaceCluster(), workspaceCluster(), workspaceCluster()]);
    const args = [
      ['hub', hub.yaml, 'role=hub'],
      ['east', east.yaml, 'role=member,region=eu'],
      ['west', west.yaml, 'role=member,region=us'],
    ].flatMap(([name = '', yaml = '', labels = '']) => ['--cluster', `${name}=${kubeconfigFile(yaml)}#${labels}`]);
    const r = launch('fanout-status', args, { INSTALL_CRDS: '1' });
    const hubClient = clientFrom('hub', hub.yaml);
    const eastClient = clientFrom('east', east.yaml);
    const westClient = clientFrom('west', west.yaml);
    await eventually(`the Rollout CRD on the hub (output so far:\n${r.output()})`, async () => (E.isRight(await hubClient.list(rollouts, { limit: 1 })) ? true : undefined));

    const name = randomName('web');
    const write = (spec: Rollout['spec']) => hubClient.apply(rollouts, { metadata: { name, namespace: 'default' }, spec }, { fieldManager: 'test', force: true });
    must(await write({ image: 'web:1', clusterSelector: { matchLabels: { region: 'eu' } } }));
    const hubStatus = async () => (await get<Rollout>(hubClient, rollouts, name, 'default'))?.status;
    await eventually(`east to report Ready on the hub (output so far:\n${r.output()})`, async () => {
      const s = await hubStatus();
      return s?.ready === 1 && s.total === 1 && s.clusters?.[0]?.cluster === 'east' ? s : undefined;
    });
    expect(await get(westClient, rollouts, name, 'default')).toBeUndefined();
    expect((await get<Rollout>(hubClient, rollouts, name, 'default'))?.metadata.finalizers).toContain(FINALIZER);

    // Widen the selector: west gets a copy too, and both report the new image.
    must(await write({ image: 'web:2', clusterSelector: { matchLabels: {} } }));
    await eventually('both members Ready with web:2', async () => {
      const s = await hubStatus();
      return s?.ready === 2 && s.clusters?.every((c) => c.image === 'web:2') === true ? true : undefined;
    });

    // Delete on the hub: the finalizer removes both copies, then the hub object goes.
    must(await hubClient.delete(rollouts, name, { namespace: 'default' }));
    await eventually('copies and hub object gone', async () =>
      (await get(hubClient, rollouts, name, 'default')) === undefined &&
      (await get(eastClient, rollouts, name, 'default')) === undefined &&
      (await get(westClient, rollouts, name, 'default')) === undefined
        ? true
        : undefined);
    expect(await terminate(r)).toBe(0);
  });
});

describe('example: namespaces-local', () => {
  it('treats each tenant namespace of one server as a cluster and keeps its settings', async () => {
    const kas = await kubeApiserverCluster('local');
    const tenant = randomName('tenant');
    const selector = `rxfleet.dev/test-tenant=${tenant}`;
    const names = [`${tenant}-a`, `${tenant}-b`];
    for (const n of names) must(await kas.cluster.client.apply(namespaces, { metadata: { name: n, labels: { 'rxfleet.dev/test-tenant': tenant } } }, { fieldManager: 'test' }));
    const r = launch('namespaces-local', ['--cluster', `local=${kubeconfigFile(kas.yaml)}`], { TENANT_SELECTOR: selector });
    const settled = async (ns: string) => (await get<ConfigMap>(kas.cluster.client, configMaps, SETTINGS, ns))?.data?.tenant === ns;
    for (const n of names) await eventually(`settings in ${n} (output so far:\n${r.output()})`, async () => ((await settled(n)) ? true : undefined));
    must(await kas.cluster.client.delete(configMaps, SETTINGS, { namespace: names[0] ?? '' }));
    await eventually('settings restored', async () => ((await settled(names[0] ?? '')) ? true : undefined));
    // A namespace created later joins the fleet.
    const late = `${tenant}-c`;
    must(await kas.cluster.client.apply(namespaces, { metadata: { name: late, labels: { 'rxfleet.dev/test-tenant': tenant } } }, { fieldManager: 'test' }));
    await eventually('settings in the late namespace', async () => ((await settled(late)) ? true : undefined));
    expect(await terminate(r)).toBe(0);
  });
});
