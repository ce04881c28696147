// kubeconfig Secrets, namespaces and multi against real servers: the management cluster is the
// shared kube-apiserver; the clusters the Secrets point at are kcp workspaces (and kube-apiserver).
import { existsSync } from 'node:fs';
import { defer, takeUntil, toArray, firstValueFrom } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { Cluster, KubeObject, ResourceDescriptor, Secret } from '../../src/index.js';
import { configMaps, namespaces as namespaceResource, secrets } from '../../src/index.js';
import { clusterListProvider } from '../../src/providers/clusters/index.js';
import { kubeconfigSecretLabel, kubeconfigSecretProvider } from '../../src/providers/kubeconfig-secrets/index.js';
import { multiProvider } from '../../src/providers/multi/index.js';
import { namespaceLabel, namespaceProvider } from '../../src/providers/namespaces/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import { clusterListerWatcher, createFleet, watchEvents } from '../../src/streams/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterFrom } from './streams-support.js';
import { b64, createConfigMap, credentialTraps, engagedAfter, isDisengaged, isEngaged, kubeApiserverAccess, kubeconfigWith, nameOf, recorder, seeConfigMap, show } from './providers-support.js';
import { randomName } from './targets.js';
import { eventually, must } from '../support/wait.js';

let hub: Cluster;
let ns: string;
let wsA: { yaml: string; cluster: Cluster };
let wsB: { yaml: string; cluster: Cluster };

beforeAll(async () => {
  hub = clusterFrom('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
  ns = await sharedKubeApiserver().createNamespace('kcsecrets');
  const [a, b] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  wsA = { yaml: a.kubeconfigYaml(), cluster: clusterFrom(a.path, a.kubeconfigYaml()) };
  wsB = { yaml: b.kubeconfigYaml(), cluster: clusterFrom(b.path, b.kubeconfigYaml()) };
});

function kubeconfigSecret(name: string, data: Record<string, string>, labels: Record<string, string> = {}): Secret {
  return { metadata: { name, namespace: ns, labels: { [kubeconfigSecretLabel]: 'true', ...labels } }, data };
}

describe('kubeconfigSecretProvider against kube-apiserver (management) and kcp workspaces (targets)', () => {
  it('should engage, skip broken Secrets naming them, ignore annotations, re-engage on new labels or a new kubeconfig and disengage on delete', async () => {
    must(await hub.client.create(secrets, kubeconfigSecret('east', { kubeconfig: b64(wsA.yaml) })), 'east');
    must(await hub.client.create(secrets, kubeconfigSecret('nokey', { other: b64('x') })), 'nokey');
    must(await hub.client.create(secrets, kubeconfigSecret('empty', { kubeconfig: '' })), 'empty');
    must(await hub.client.create(secrets, kubeconfigSecret('malformed', { kubeconfig: b64('clusters: [ {') })), 'malformed');
    must(await hub.client.create(secrets, { metadata: { name: 'unlabelled', namespace: ns }, data: { kubeconfig: b64(wsB.yaml) } }), 'unlabelled');

    const rec = recorder();
    const fleet = createFleet(kubeconfigSecretProvider({ management: hub, namespace: ns }));
    const engagements: string[] = [];
    const sub = fleet.engagements.subscribe(({ cluster }) => engagements.push(cluster.name));
    // The fleet subscribes once; record through a second look at its view and the reports.
    rec.start(kubeconfigSecretProvider({ management: hub, namespace: ns }));

    const east = await rec.waitEvent('east engaged', isEngaged('east'));
    expect(east.type === 'engaged' && east.cluster.client.server).toBe(wsA.cluster.client.server);
    for (const [name, why] of [
      ['nokey', `Secret ${ns}/nokey has no "kubeconfig" key`],
      ['empty', `Secret ${ns}/empty has an empty "kubeconfig"`],
      ['malformed', `Secret ${ns}/malformed: invalid kubeconfig`],
    ] as const) {
      const r = await rec.waitReport(`${name} skipped`, (x) => x.type === 'skipped' && x.candidate === name);
      expect(r.type === 'skipped' && r.reason).toContain(why);
    }
    expect(rec.events.some(isEngaged('unlabelled'))).toBe(false);

    // A watch through the engaged cluster sees the workspace's objects.
    const cmA = randomName('in-a');
    await createConfigMap(wsA.cluster.client, 'default', cmA);
    if (east.type !== 'engaged') throw new Error('unreachable');
    expect(await seeConfigMap(east.cluster, 'default', cmA)).toBe(cmA);

    // Added later.
    must(await hub.client.create(secrets, kubeconfigSecret('west', { kubeconfig: b64(wsB.yaml) })), 'west');
    const west = await rec.waitEvent('west engaged', isEngaged('west'));
    if (west.type !== 'engaged') throw new Error('unreachable');
    const westWatch = firstValueFrom(watchEvents(west.cluster, configMaps, { namespace: 'default' }).pipe(takeUntil(rec.waitEvent('west disengaged', isDisengaged('west'))), toArray()));

    // Annotations only: nothing happens. A Secret created after them is the sentinel: the provider
    // handles its watch's events in order and would disengage east as it handles the annotation,
    // so once the sentinel is engaged, the annotation has been handled.
    const before = rec.events.length;
    must(await hub.client.patch(secrets, 'east', { metadata: { annotations: { note: 'x' } } }, { type: 'merge', namespace: ns }), 'annotate east');
    must(await hub.client.create(secrets, kubeconfigSecret('sentinel', { kubeconfig: b64(wsB.yaml) })), 'sentinel');
    await rec.waitEvent('sentinel engaged', isEngaged('sentinel'));
    expect(rec.events.slice(before).map(show)).toEqual(['+sentinel']);

    // The Secret's labels are the cluster's: a label change re-engages it with them, saying why.
    must(await hub.client.patch(secrets, 'east', { metadata: { labels: { touched: 'yes' } } }, { type: 'merge', namespace: ns }), 'label east');
    const relabelled = await engagedAfter(rec, 'east', before);
    if (relabelled.type !== 'engaged') throw new Error('unreachable');
    expect(relabelled.cluster.labels).toEqual({ [kubeconfigSecretLabel]: 'true', touched: 'yes' });
    expect(relabelled.cluster.identity).toEqual({ provider: 'kubeconfig-secrets', from: `Secret ${ns}/east` });
    const why = await rec.waitReport('east relabelled', (r) => r.type === 'reengaged' && r.cluster === 'east');
    expect(why.type === 'reengaged' && why.reason).toBe('labels or identity changed');

    // A new kubeconfig pointing at another server: disengaged, then engaged with a new client that
    // sees that server's objects.
    const beforeSwitch = rec.events.length;
    const kasNs = await sharedKubeApiserver().createNamespace('kcswitch');
    const cmK = randomName('in-kas');
    await createConfigMap(hub.client, kasNs, cmK);
    must(await hub.client.patch(secrets, 'east', { data: { kubeconfig: b64(sharedKubeApiserver().kubeconfigYaml('admin')) } }, { type: 'merge', namespace: ns }), 'switch east');
    const east2 = await engagedAfter(rec, 'east', beforeSwitch);
    const iDis = rec.events.findIndex((ev, i) => i >= beforeSwitch && isDisengaged('east')(ev));
    expect(iDis).toBeGreaterThanOrEqual(beforeSwitch);
    expect(iDis).toBeLessThan(rec.events.indexOf(east2));
    if (east2.type !== 'engaged') throw new Error('unreachable');
    expect(east2.cluster.client).not.toBe(relabelled.cluster.client);
    expect(await seeConfigMap(east2.cluster, kasNs, cmK)).toBe(cmK);
    // The old clients were closed by the provider.
    for (const old of [east.cluster.client, relabelled.cluster.client]) {
      const r = await old.list(configMaps, { namespace: 'default' });
      expect(E.isLeft(r) && r.left.type).toBe('NotEngaged');
    }
    await rec.waitReport('east reengaged', (r) => r.type === 'reengaged' && r.cluster === 'east' && r.reason === 'credentials or server changed');

    // Deleted: disengaged, its watch stops, its client is closed.
    must(await hub.client.delete(secrets, 'west', { namespace: ns }), 'delete west');
    const gone = await rec.waitEvent('west disengaged', isDisengaged('west'));
    expect(gone.type === 'disengaged' && gone.reason).toBe('its Secret was deleted');
    await westWatch;
    const closed = await west.cluster.client.list(configMaps, { namespace: 'default' });
    expect(E.isLeft(closed) && closed.left.type).toBe('NotEngaged');

    // The fleet saw the same story (through a watch of its own: it may lag behind the recorder's).
    await eventually('the fleet to engage east three times', () => engagements.filter((n) => n === 'east').length >= 3, { timeoutMs: 10_000 });
    expect(engagements.filter((n) => n === 'east').length).toBe(3);
    sub.unsubscribe();
    const eventsAtStop = rec.events.length;
    rec.stop();
    const afterStop = await east2.cluster.client.list(configMaps, { namespace: kasNs });
    expect(E.isLeft(afterStop) && afterStop.left.type).toBe('NotEngaged');
    expect(rec.events.length).toBe(eventsAtStop);
  });

  it('should engage an unreachable cluster’s neighbours at once and report it as waiting', async () => {
    const dead = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:9' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    });
    const label = randomName('slow');
    must(await hub.client.create(secrets, kubeconfigSecret('dead', { kubeconfig: b64(dead) }, { set: label })), 'dead');
    must(await hub.client.create(secrets, kubeconfigSecret('alive', { kubeconfig: b64(wsA.yaml) }, { set: label })), 'alive');
    const rec = recorder();
    rec.start(kubeconfigSecretProvider({ management: hub, namespace: ns, labelSelector: `set=${label}`, probeTimeoutMs: 2_000, retryIntervalMs: 60_000 }));
    await rec.waitEvent('alive engaged', isEngaged('alive'));
    const waiting = await rec.waitReport('dead waiting', (r) => r.type === 'waiting' && r.cluster === 'dead');
    expect(waiting.type === 'waiting' && waiting.reason).toMatch(/ECONNREFUSED|cannot reach/);
    expect(rec.events.some(isEngaged('dead'))).toBe(false);
    rec.stop();
  });
});

describe('kubeconfigSecretProvider with kubeconfigs that would run a program or read a file', () => {
  it('should refuse an exec plugin and a token file, naming the Secret and the field, engage a plain Secret next to them, and allow both by trust', async () => {
    // Both would work if used: the plugin prints the admin token (and leaves a mark), the file holds it.
    const { server, caData, token } = kubeApiserverAccess();
    const { mark, plugin, tokenFile } = credentialTraps(token, 'rxfleet-trust-');
    const label = randomName('trust');
    must(await hub.client.create(secrets, kubeconfigSecret('exec', { kubeconfig: b64(kubeconfigWith(server, caData, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } })) }, { set: label })), 'exec');
    must(await hub.client.create(secrets, kubeconfigSecret('tokenfile', { kubeconfig: b64(kubeconfigWith(server, caData, { 'token-file': tokenFile })) }, { set: label })), 'tokenfile');
    must(await hub.client.create(secrets, kubeconfigSecret('plain', { kubeconfig: b64(kubeconfigWith(server, caData, { token })) }, { set: label })), 'plain');

    const rec = recorder();
    rec.start(kubeconfigSecretProvider({ management: hub, namespace: ns, labelSelector: `set=${label}` }));
    const plain = await rec.waitEvent('plain engaged', isEngaged('plain'));
    const cm = randomName('trusted');
    await createConfigMap(hub.client, 'default', cm);
    if (plain.type !== 'engaged') throw new Error('unreachable');
    expect(await seeConfigMap(plain.cluster, 'default', cm)).toBe(cm);
    const execSkipped = await rec.waitReport('exec skipped', (r) => r.type === 'skipped' && r.candidate === 'exec');
    expect(execSkipped.type === 'skipped' && execSkipped.reason).toBe(
      `Secret ${ns}/exec: kubeconfig field users[0].user.exec is not allowed from a Secret (it runs ${JSON.stringify(plugin)}; allow the command with trust.execCommands)`,
    );
    const fileSkipped = await rec.waitReport('tokenfile skipped', (r) => r.type === 'skipped' && r.candidate === 'tokenfile');
    expect(fileSkipped.type === 'skipped' && fileSkipped.reason).toBe(
      `Secret ${ns}/tokenfile: kubeconfig field users[0].user.token-file is not allowed from a Secret (it reads ${JSON.stringify(tokenFile)}; allow the file with trust.files)`,
    );
    // The first pass ends once each of its candidates is engaged, skipped or waiting: nothing more comes of them.
    await rec.waitReport('the first discovery pass', (r) => r.type === 'discovered');
    expect(rec.events.map(show)).toEqual(['+plain']);
    expect(existsSync(mark)).toBe(false);
    rec.stop();

    // The operator allows exactly these: both are engaged and work, and the plugin did run.
    const trusted = recorder();
    trusted.start(kubeconfigSecretProvider({ management: hub, namespace: ns, labelSelector: `set=${label}`, trust: { execCommands: [plugin], files: [tokenFile] } }));
    for (const name of ['exec', 'tokenfile']) {
      const ev = await trusted.waitEvent(`${name} engaged`, isEngaged(name));
      if (ev.type !== 'engaged') throw new Error('unreachable');
      expect(await seeConfigMap(ev.cluster, 'default', cm)).toBe(cm);
    }
    expect(existsSync(mark)).toBe(true);
    expect(trusted.reports.filter((r) => r.type === 'skipped')).toEqual([]);
    trusted.stop();
  });
});

describe('kubeconfigSecretProvider whose identity may not read Secrets (403)', () => {
  it('should report the Forbidden cause once, naming the management cluster and resource, emit no FleetEvent, and not hold back a provider merged with it', async () => {
    const limited = clusterFrom('hub-limited', sharedKubeApiserver().kubeconfigYaml('limited'));
    // The Secret exists: only the identity's missing RBAC keeps it from being discovered.
    const label = randomName('forbidden');
    must(await hub.client.create(secrets, kubeconfigSecret('forbidden-east', { kubeconfig: b64(wsA.yaml) }, { set: label })), 'forbidden-east');
    const tenant = randomName('tenant-ok');
    must(await hub.client.create(namespaceResource, { metadata: { name: tenant, labels: { set: label } } }), `ns ${tenant}`);

    const rec = recorder();
    // A fast auth backoff, so the watch retries several times within the test; its calls are counted.
    const authBackoff = { initialMs: 200, factor: 1, maxMs: 200, resetAfterMs: 600_000 };
    let calls = 0;
    const counted = <T extends KubeObject>(c: Cluster, r: ResourceDescriptor<T>): ListerWatcher<T> => {
      const source = clusterListerWatcher(c, r);
      return {
        list: (o) => defer(() => ((calls += 1), source.list(o))),
        watch: (o) => defer(() => ((calls += 1), source.watch(o))),
      };
    };
    rec.start(
      multiProvider({
        secrets: kubeconfigSecretProvider({ management: limited, namespace: ns, labelSelector: `set=${label}`, managementWatch: { authBackoff, listerWatcherFor: counted } }),
        tenants: namespaceProvider({ management: hub, labelSelector: `set=${label}` }),
      }),
    );
    const failing = await rec.waitReport('secrets source failing', (r) => r.type === 'source' && r.state === 'failing');
    if (failing.type !== 'source' || failing.state !== 'failing') throw new Error('unreachable');
    expect(failing).toMatchObject({ provider: 'kubeconfig-secrets', management: 'hub-limited', resource: 'secrets', error: 'Forbidden' });
    expect(failing.reason).toContain(`watch of secrets in namespace "${ns}" on management cluster "hub-limited" is failing (Forbidden`);
    expect(failing.reason).toMatch(/403/);
    expect(failing.reason).toMatch(/cannot (list|watch) resource "secrets"/);

    // The merged namespaces provider works all the same.
    await rec.waitEvent(`tenants#${tenant} engaged`, isEngaged(`tenants#${tenant}`));
    // Several retries later: still one report, and nothing from the refused Secrets. A call starts
    // only after the failure before it was handled (and reported, if it were).
    const callsAtReport = calls;
    await eventually('three more refused calls', () => calls >= callsAtReport + 4, { timeoutMs: 10_000 });
    expect(rec.reports.filter((r) => r.type === 'source')).toHaveLength(1);
    expect(rec.events.filter((ev) => nameOf(ev).startsWith('secrets#'))).toEqual([]);
    expect(rec.events.map(show)).toEqual([`+tenants#${tenant}`]);
    rec.stop();
    limited.client.close();
  });
});

describe('namespaceProvider against kube-apiserver', () => {
  it('should engage labelled namespaces as clusters scoped to them, and disengage one as its deletion starts', async () => {
    const label = randomName('tenants');
    const mk = async (name: string) => must(await hub.client.create(namespaceResource, { metadata: { name, labels: { tenants: label } } }), `ns ${name}`);
    const a = randomName('tenant-a');
    const b = randomName('tenant-b');
    await mk(a);
    const rec = recorder();
    rec.start(namespaceProvider({ management: hub, labelSelector: `tenants=${label}` }));
    const ea = await rec.waitEvent('a engaged', isEngaged(a));
    if (ea.type !== 'engaged') throw new Error('unreachable');
    expect(ea.cluster.labels).toEqual({ [namespaceLabel]: a });

    await mk(b);
    const eb = await rec.waitEvent('b engaged', isEngaged(b));
    if (eb.type !== 'engaged') throw new Error('unreachable');
    // A namespace-less request through b's client lands in b.
    const cm = randomName('scoped');
    await createConfigMap(eb.cluster.client, b, cm);
    const listed = must(await eb.cluster.client.list(configMaps), 'list b');
    expect(listed.items.map((o) => o.metadata.name)).toEqual([cm]);
    expect(await seeConfigMap(eb.cluster, b, cm)).toBe(cm);

    must(await hub.client.delete(namespaceResource, b), 'delete b');
    const gone = await rec.waitEvent('b disengaged', isDisengaged(b));
    expect(gone.type === 'disengaged' && gone.reason).toBe('its namespace was deleted');
    // The management client is shared, never closed by the provider.
    rec.stop();
    expect(E.isRight(await hub.client.list(namespaceResource, { limit: 1 }))).toBe(true);
  });
});

describe('multiProvider with real clusters', () => {
  it('should prefix names, take providers added before and after subscription, and disengage a removed provider’s clusters', async () => {
    const all = multiProvider({ kcp: clusterListProvider([{ name: 'a', kubeconfig: { yaml: wsA.yaml } }]) });
    const rec = recorder();
    rec.start(all);
    const a = await rec.waitEvent('kcp#a', isEngaged('kcp#a'));
    all.add('kas', clusterListProvider([{ name: 'hub', kubeconfig: { yaml: sharedKubeApiserver().kubeconfigYaml('admin') } }]));
    const h = await rec.waitEvent('kas#hub', isEngaged('kas#hub'));
    if (a.type !== 'engaged' || h.type !== 'engaged') throw new Error('unreachable');
    const cm = randomName('multi');
    await createConfigMap(wsA.cluster.client, 'default', cm);
    expect(await seeConfigMap(a.cluster, 'default', cm)).toBe(cm);
    all.remove('kcp');
    await rec.waitEvent('kcp#a disengaged', isDisengaged('kcp#a'));
    const closed = await a.cluster.client.list(configMaps, { namespace: 'default' });
    expect(E.isLeft(closed) && closed.left.type).toBe('NotEngaged');
    expect(rec.engaged('kas#hub')).toBe(h.cluster);
    rec.stop();
  });
});
