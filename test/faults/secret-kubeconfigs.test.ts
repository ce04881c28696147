// A controller whose clusters come from kubeconfig Secrets, two of which would make it run a
// program (an exec plugin) or read a local file (token-file), beside a plain one. A Secret's author
// must not get code execution or file reads in the controller's pod: both are refused, the run's
// health and logs name the Secret and the refused field, the plugin never runs (it would leave a
// mark file), and the plain cluster works as if they were not there: its store equals a fresh list,
// every write is delivered, each delete seen once, and it reconciles. Both kubeconfigs would work if
// used (test/integration/providers-secrets.test.ts shows them engaged when trusted).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap, Secret } from '../../src/index.js';
import { clusterName, configMaps, controller, done, run, secrets } from '../../src/index.js';
import { kubeconfigSecretLabel, kubeconfigSecretProvider } from '../../src/providers/kubeconfig-secrets/index.js';
import type { Informers } from '../../src/streams/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { b64, credentialTraps, kubeApiserverAccess, kubeconfigWith } from '../integration/providers-support.js';
import { randomName } from '../integration/targets.js';
import { capturedLogs, clusterOf, recorder, storeMatchesServer, workload } from './faults-support.js';
import { eventually, retrying } from '../support/wait.js';

let hub: Cluster;
let secretsNs: string;
let workNs: string;

beforeAll(async () => {
  hub = clusterOf('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
  [secretsNs, workNs] = await Promise.all([sharedKubeApiserver().createNamespace('trust'), sharedKubeApiserver().createNamespace('trustwork')]);
});
afterAll(() => {
  hub.client.close();
});

interface LogLine {
  readonly msg: string;
  readonly candidate?: string;
  readonly reason?: string;
}

describe('a controller over kubeconfig Secrets that would run a program or read a file', () => {
  it('refuses both, naming the Secret and the field, never runs the plugin, and keeps the plain cluster exact and reconciling', async () => {
    const { server, caData, token } = kubeApiserverAccess();
    const { mark, plugin, tokenFile } = credentialTraps(token, 'rxfleet-faults-trust-');
    const set = randomName('trust');
    const secret = (name: string, user: Record<string, unknown>): Secret => ({
      metadata: { name, namespace: secretsNs, labels: { [kubeconfigSecretLabel]: 'true', set } },
      data: { kubeconfig: b64(kubeconfigWith(server, caData, user)) },
    });
    await retrying('exec', () => hub.client.create(secrets, secret('exec', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } })));
    await retrying('tokenfile', () => hub.client.create(secrets, secret('tokenfile', { 'token-file': tokenFile })));
    await retrying('plain', () => hub.client.create(secrets, secret('plain', { token })));

    const w = workload(hub, workNs, 'trust');
    await w.prepare();
    const { lines, logger } = capturedLogs<LogLine>();
    const reconciled = new Map<string, (ConfigMap | undefined)[]>();
    let informers: Informers | undefined;
    const c = controller<ConfigMap>({
      name: 'trust',
      provider: kubeconfigSecretProvider({ management: hub, namespace: secretsNs, labelSelector: `set=${set}` }),
      resource: configMaps,
      select: { namespace: workNs, labelSelector: w.label },
      inputs: (ctx) => {
        informers = ctx.informers;
        return [];
      },
      reconcile: (req) => {
        const name = `${req.cluster}/${req.key.name}`;
        reconciled.set(name, [...(reconciled.get(name) ?? []), req.object]);
        return done();
      },
    });
    const handle = await run(c, { logger, signals: false, http: false });
    const rec = recorder();
    const stops: (() => void)[] = [];
    try {
      const plainName = clusterName('plain');
      await eventually('plain synced', () => (handle.health.report().clusters.find((h) => h.cluster === plainName)?.state === 'synced' ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });

      // Refused, each naming its Secret and the field, in the run's health and in its logs.
      const refusals = {
        exec: `Secret ${secretsNs}/exec: kubeconfig field users[0].user.exec is not allowed from a Secret (it runs ${JSON.stringify(plugin)}; allow the command with trust.execCommands)`,
        tokenfile: `Secret ${secretsNs}/tokenfile: kubeconfig field users[0].user.token-file is not allowed from a Secret (it reads ${JSON.stringify(tokenFile)}; allow the file with trust.files)`,
      };
      for (const [name, reason] of Object.entries(refusals)) {
        const issue = await eventually(`${name} refused in health`, () => handle.health.report().providers.find((i) => i.reason.includes(`Secret ${secretsNs}/${name}:`)), { timeoutMs: 30_000, intervalMs: 20 });
        expect(issue).toMatchObject({ provider: 'kubeconfig-secrets', type: 'skipped', reason });
        const logged = lines.filter((l) => l.msg === 'provider: candidate skipped' && l.reason === reason);
        expect(logged.length, `log lines refusing ${name}`).toBeGreaterThanOrEqual(1);
      }

      // The plain cluster, beside them: the run's own informer stays exact through writes.
      const plain = handle.fleet.get(plainName);
      if (plain === undefined || informers === undefined) throw new Error('plain is not engaged, or the run built no informers');
      const inf = informers.informer(plain, configMaps, { namespace: workNs, labelSelector: w.label });
      const hsub = inf.health.subscribe(rec.onHealth);
      const sub = inf.events.subscribe(rec.onEvent);
      stops.push(() => {
        sub.unsubscribe();
        hsub.unsubscribe();
      });
      await storeMatchesServer(inf.store, hub.client, workNs, 30_000, w.label);
      await w.during();
      await storeMatchesServer(inf.store, hub.client, workNs, 30_000, w.label);
      w.verify(rec);
      expect(rec.latest()?.relists ?? 0, 'relists').toBe(0);
      const onServer = await retrying('list', () => hub.client.listAll(configMaps, { namespace: workNs, labelSelector: w.label }));
      for (const o of onServer.items) {
        const name = `plain/${o.metadata.name ?? ''}`;
        await eventually(`${name} reconciled at ${o.metadata.resourceVersion ?? ''}`, () => (reconciled.get(name)?.at(-1)?.metadata.resourceVersion === o.metadata.resourceVersion ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      }
      for (const deleted of rec.deletes.keys()) {
        await eventually(`plain/${deleted} reconciled as deleted`, () => (reconciled.has(`plain/${deleted}`) && reconciled.get(`plain/${deleted}`)?.at(-1) === undefined ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      }

      // Nothing ran, nothing else joined: only plain was ever engaged or reconciled.
      expect(existsSync(mark), 'the exec plugin ran').toBe(false);
      expect(handle.fleet.clusters().map((x) => x.name)).toEqual([plainName]);
      expect(handle.health.report().clusters.map((h) => h.cluster)).toEqual([plainName]);
      expect([...reconciled.keys()].filter((k) => !k.startsWith('plain/')), 'reconciles outside plain').toEqual([]);
      expect(lines.filter((l) => l.msg === 'cluster engaged').length, 'clusters engaged').toBe(1);
    } finally {
      for (const stop of stops) stop();
      await handle.stop({ deadlineMs: 0 });
    }
  });
});
