// The sync agent against tenants trying to reach each other's objects (issue 28 item 1), on the real
// kcp and kube-apiserver with `rxfleet-sync-agent` as its own process, configured as the issue found it
// leaking: every workspace's copies in ONE service namespace (`naming.namespace`), a connection
// Secret up (`spec.connectionSecretName`) and a config ConfigMap down (`spec.configName`). Every
// check reads the data that arrived, not only the absence of an error.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap, Secret } from '../../src/index.js';
import { configMaps, namespaces, secrets } from '../../src/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { badConfigRun } from '../support/sync-agent-scenarios.js';
import { must } from '../support/wait.js';
import type { Conditioned, AgentWorkspace as Workspace } from './sync-agent-scenario.js';
import { claimNames, relatedScenario, synced } from './sync-agent-scenario.js';
import { sharedNamespaceConfig, tierMessage } from './sync-tenancy-support.js';

type Tiered = Conditioned & { readonly spec: Database['spec'] & { readonly configName?: string } };

const data = (secret: Secret | undefined): Record<string, string> => Object.fromEntries(Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

/** The operator's connection Secret for a copy, on the service cluster: where the copy's spec says. */
async function serviceSecret(copy: Tiered): Promise<Secret> {
  return waitFor(`the operator's Secret of ${copy.metadata.name ?? ''}`, () => getOrUndefined<Secret>(s.svc.client, secrets, copy.spec.connectionSecretName ?? '', s.svc.sharedNamespace), { context: s.context });
}

/** Creates a consumer object and waits until it is Ready and its connection Secret arrived. */
async function create(w: Workspace, namespace: string, name: string, spec: Tiered['spec']): Promise<{ consumer: Tiered; copy: Tiered; secret: Secret }> {
  must(await w.client.apply(s.dbs, { metadata: { name, namespace }, spec }, { fieldManager: 'consumer' }));
  const copy = await s.copyOf(w, name, namespace);
  const consumer = await waitFor(`${w.ws.logicalCluster}/${namespace}/${name} Ready`, async () => {
    const d = await getOrUndefined(w.client, s.dbs, name, namespace);
    return d?.status?.phase === 'Ready' ? d : undefined;
  }, { context: s.context });
  const secret = await waitFor(`the connection Secret of ${name} in ${w.ws.logicalCluster}`, async () => {
    const got = await getOrUndefined<Secret>(w.client, secrets, spec.connectionSecretName ?? '', namespace);
    return got !== undefined && backRef(got).name === name ? got : undefined;
  }, { context: s.context });
  return { consumer, copy, secret };
}

const s = relatedScenario<Tiered>({ consumers: 2, config: (side) => side.tenancyConfigYaml, claimed: (c) => claimNames(c).join() === 'configmaps.,secrets.' });

beforeAll(async () => {
  must(await s.a.client.apply(namespaces, { metadata: { name: 'team' } }, { fieldManager: 'consumer' }));
  must(await s.b.client.apply(namespaces, { metadata: { name: 'other' } }, { fieldManager: 'consumer' }));
});

describe('rxfleet-sync-agent: no tenant reaches another\'s objects (one service namespace for every workspace)', () => {
  let victim: { consumer: Tiered; copy: Tiered; secret: Secret };
  let victimOnService: Secret;

  it('a consumer naming another tenant\'s connection Secret gets its own credentials, never the other tenant\'s', async () => {
    victim = await create(s.a, 'default', 'orders', { engine: 'postgres', size: 1, connectionSecretName: 'a-conn' });
    victimOnService = await serviceSecret(victim.copy);
    expect(data(victim.secret)).toEqual(data(victimOnService));
    // B names A's Secret: the name is B's to use in B's workspace, the service side is not.
    const thief = await create(s.b, 'default', 'thief', { engine: 'postgres', size: 1, connectionSecretName: 'a-conn' });
    const got = data(thief.secret);
    for (const [k, v] of Object.entries(data(victimOnService))) expect(got[k], k).not.toBe(v);
    expect(got.endpoint).toBe(`${thief.copy.metadata.name ?? ''}.${s.svc.sharedNamespace}.svc:5432`);
    expect(got.username).toBe(thief.copy.metadata.name);
    // A's Secret, on both sides, is as the operator made it for A.
    expect(data(await serviceSecret(victim.copy))).toEqual(data(victimOnService));
    expect(data(must(await s.a.client.get<Secret>(secrets, 'a-conn', { namespace: 'default' })))).toEqual(data(victimOnService));
    // The copies share the namespace; the service-side names are each their own.
    expect(thief.copy.metadata.namespace).toBe(victim.copy.metadata.namespace);
    expect(thief.copy.spec.connectionSecretName).not.toBe(victim.copy.spec.connectionSecretName);
    // Nothing was refused: B never came near A's objects.
    expect(synced(thief.consumer)).toBeUndefined();
  });

  it('two namespaces of one workspace with the same related names each get their own config down and credentials up', async () => {
    for (const [ns, tier] of [['default', 'gold'], ['team', 'bronze']] as const) {
      must(await s.a.client.apply(configMaps, { metadata: { name: 'dup-cfg', namespace: ns }, data: { tier } }, { fieldManager: 'consumer' }));
    }
    const spec = { engine: 'postgres', size: 1, connectionSecretName: 'dup-conn', configName: 'dup-cfg' };
    const [def, team] = await Promise.all([create(s.a, 'default', 'dup', spec), create(s.a, 'team', 'dup', spec)]);
    for (const [ns, tier] of [['default', 'gold'], ['team', 'bronze']] as const) {
      await waitFor(`${ns}/dup reports its own tier`, async () => ((await getOrUndefined(s.a.client, s.dbs, 'dup', ns))?.status?.message === tierMessage(tier) ? true : undefined), { context: s.context });
    }
    expect(data(team.secret).username).toBe(team.copy.metadata.name);
    expect(data(def.secret).username).toBe(def.copy.metadata.name);
    expect(data(team.secret).password).not.toBe(data(def.secret).password);
    // On the service side: one ConfigMap per consumer object, each its own.
    for (const [copy, ns, tier] of [[def.copy, 'default', 'gold'], [team.copy, 'team', 'bronze']] as const) {
      const cm = await waitFor(`the config of ${ns}/dup on the service side`, () => getOrUndefined<ConfigMap>(s.svc.client, configMaps, copy.spec.configName ?? '', s.svc.sharedNamespace), { context: s.context });
      expect(cm.data).toEqual({ tier });
      expect(backRef(cm)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: ns, name: 'dup' });
    }
    expect(def.copy.spec.configName).not.toBe(team.copy.spec.configName);
  });

  it('a forged back-reference on the service side is never delivered, and the refusal is in the consumer object\'s status', async () => {
    const target = await create(s.b, 'default', 'target', { engine: 'postgres', size: 1, connectionSecretName: 'target-conn' });
    const own = data(target.secret);
    // Someone on the service side fills B's Secret with A's credentials, and a back-reference
    // claiming B's object (a well-formed one: the hash matches, only the uid is not B's).
    const at = target.copy.spec.connectionSecretName ?? '';
    const forged = withBackReference({ metadata: { name: at, namespace: s.svc.sharedNamespace } }, { ...backRef(target.copy), uid: 'forged-uid' });
    must(await s.svc.client.patch(secrets, at, { metadata: forged.metadata, data: victimOnService.data }, { type: 'merge', namespace: s.svc.sharedNamespace }));
    const refused = await s.refusedIn(s.b, 'target');
    expect(refused.reason).toBe('Refused');
    expect(refused.message).toContain('related "connection" (Secret');
    expect(refused.message).toContain('belongs to another object');
    expect(refused.message).not.toContain(s.a.ws.logicalCluster);
    // B still holds its own credentials: A's never arrived.
    const now = data(must(await s.b.client.get<Secret>(secrets, 'target-conn', { namespace: 'default' })));
    expect(now).toEqual(own);
    expect(now.password).not.toBe(data(victimOnService).password);
  });

  it('a consumer that renames its related object while a copy exists gets its own under the new name, and the old copy goes', async () => {
    const renamer = await create(s.b, 'other', 'renamer', { engine: 'postgres', size: 1, connectionSecretName: 'b-conn' });
    const own = data(renamer.secret);
    must(await s.b.client.patch(s.dbs, 'renamer', { spec: { connectionSecretName: 'a-conn' } }, { type: 'merge', namespace: 'other' }));
    const moved = await waitFor('the copy under its new name, the old one gone', async () => {
      const [now, old] = await Promise.all([getOrUndefined<Secret>(s.b.client, secrets, 'a-conn', 'other'), getOrUndefined<Secret>(s.b.client, secrets, 'b-conn', 'other')]);
      return now !== undefined && old === undefined ? now : undefined;
    }, { context: s.context });
    expect(data(moved)).toEqual(own);
    expect(data(moved).password).not.toBe(data(victimOnService).password);
    expect(data(await serviceSecret(victim.copy))).toEqual(data(victimOnService));
  });

  it('two objects of one namespace naming one Secret: the second is refused in its status, the first keeps its own', async () => {
    const before = data(must(await s.b.client.get<Secret>(secrets, 'a-conn', { namespace: 'default' })));
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'second', namespace: 'default' }, spec: { engine: 'mysql', size: 1, connectionSecretName: 'a-conn' } }, { fieldManager: 'consumer' }));
    const refused = await s.refusedIn(s.b, 'second');
    expect(refused.message).toBe('refused by the sync agent: related "connection" (Secret a-conn in this workspace): Secret belongs to another object');
    const after = must(await s.b.client.get<Secret>(secrets, 'a-conn', { namespace: 'default' }));
    expect(backRef(after).name).toBe('thief');
    expect(data(after)).toEqual(before);
  });

  it('refuses at start a naming that would put two workspaces\' objects in one place, naming the template and the fix', async () => {
    const yaml = sharedNamespaceConfig(s.svc, s.svc.sharedNamespace, '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}');
    const run = await badConfigRun(yaml, s.files);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('published[0] "databases": naming: naming.namespace and naming.name never read .ClusterName');
  });
});
