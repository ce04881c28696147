// The sync agent following PublishedResources live (`watchPublishedResources: true`) with two kcp
// installations, on real servers as separate processes: the shared kcp (the default installation),
// a second kcp this file starts (installation `eu`), the shared kube-apiserver as the service
// cluster, and `rxfleet-sync-agent` as its own process with no published entry of its own. In
// order: a PublishedResource whose naming would give eu's objects the default installation's places
// is refused naming both; one created is published into both installations' exports, and deleted,
// its entry leaves both; one whose group+resource eu's export already lists with a schema the
// agent did not make (another provider's API, whose consumers are eu's) is refused naming eu and
// reaches neither export, eu's entry untouched, and served once that entry is gone (the export's
// change alone checks it again: nothing changes on the service cluster); with eu's kcp
// stopped (SIGSTOP), a deletion and a creation reach the default export while eu is down, and eu's
// export follows once it resumes: the new entry in, the deleted one out.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { APIResourceSchema } from '../../src/providers/kcp/index.js';
import { apiExports, apiResourceSchemas } from '../../src/providers/kcp/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpHandle } from '../support/kcp.js';
import { startKcp } from '../support/kcp.js';
import type { Export } from '../support/sync-agent-kcp.js';
import { exportsV1alpha2, getOrUndefined } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { installPublishedResourceCrd, liveEuConfig, publishedResourceOf, publishedResources, readyCondition as readyOn } from '../support/sync-published-resources.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let svc: ServiceSide;
let kcpEu: KcpHandle;
let agent: SyncAgentProcess;
let provider: ClusterClient;
let providerEu: ClusterClient;
const tag = randomBytes(3).toString('hex');
const context = (): string => agent.tail(60);
/** Text of its own before the workspace: the default installation's `ws-root` and eu's `eu-ws-root` cannot meet. */
const naming = { naming: { namespace: 'ws-{{ .ClusterName }}' } };
const published = (name: string, extra: Record<string, unknown> = naming): ReturnType<typeof publishedResourceOf> => publishedResourceOf(name, svc.group, 'Database', tag, extra);
const readyCondition = (name: string, status: string): ReturnType<typeof readyOn> => readyOn(svc.client, name, status, context);
/** The export's schema for `<plural>.<group>`, if it lists one. */
const entry = (ex: Export | undefined, group: string): string | undefined => ex?.spec?.resources?.find((r) => r.name === 'databases' && r.group === group)?.schema;
const exportOf = async (c: ClusterClient): Promise<Export | undefined> => getOrUndefined(c, exportsV1alpha2, svc.exportName);
/** The export in `c` once `ok` holds for it. */
const exportWhere = (c: ClusterClient, what: string, ok: (e: Export) => boolean, timeoutMs = 90_000): Promise<Export> =>
  waitFor(`the APIExport in ${c.cluster} ${what}`, async () => {
    const ex = await exportOf(c);
    return ex !== undefined && ok(ex) ? ex : undefined;
  }, { timeoutMs, context });
const listing = (c: ClusterClient, group: string, timeoutMs?: number): Promise<Export> => exportWhere(c, `listing databases.${group}`, (e) => entry(e, group) !== undefined, timeoutMs);
const without = (c: ClusterClient, group: string, timeoutMs?: number): Promise<Export> => exportWhere(c, `without databases.${group}`, (e) => entry(e, group) === undefined, timeoutMs);

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  await installPublishedResourceCrd(svc.client);
  kcpEu = await startKcp();
  const [p, pEu] = await Promise.all([sharedKcp().createWorkspace(), kcpEu.createWorkspace()]);
  provider = clientFrom(p.path, p.kubeconfigYaml());
  providerEu = clientFrom(`eu#${pEu.path}`, pEu.kubeconfigYaml());
  const config = liveEuConfig(svc, tag, pEu.kubeconfigYaml());
  agent = startSyncAgent({ configFile: tempFile('sync.yaml', config), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
});

afterAll(async () => {
  kcpEu.resume();
  await agent.stop(10_000);
  for (const name of [`collide-${tag}`, `dbs-${tag}`, `again-${tag}`, `moved-${tag}`]) await svc.client.delete(publishedResources, name);
  for (const c of [provider, providerEu]) c.close();
  await svc.stop();
  await kcpEu.stop();
});

describe('rxfleet-sync-agent with watchPublishedResources and two kcp installations', () => {
  it('refuses a PublishedResource whose places could meet across installations; publishes one into both exports, and retires it from both once deleted', { timeout: 300_000 }, async () => {
    // The attacker's PublishedResource: the default naming gives a default workspace named `eu-root` eu's root's place.
    must(await svc.client.create(publishedResources, published(`collide-${tag}`, {})));
    const refused = await readyCondition(`collide-${tag}`, 'False');
    expect(refused.message).toContain('installations "default" (namespace prefix "") and "eu" (namespace prefix "eu-") can give two objects one service-side place');
    must(await svc.client.delete(publishedResources, `collide-${tag}`));

    must(await svc.client.create(publishedResources, published(`dbs-${tag}`)));
    const [ex, exEu] = await Promise.all([listing(provider, svc.group), listing(providerEu, svc.group, 120_000)]);
    expect(entry(exEu, svc.group)).toBe(entry(ex, svc.group));
    expect((await readyCondition(`dbs-${tag}`, 'True')).message).toBe(`served as databases.${svc.group}`);

    must(await svc.client.delete(publishedResources, `dbs-${tag}`));
    await Promise.all([without(provider, svc.group), without(providerEu, svc.group)]);
  });

  it("refuses, naming eu, one whose group+resource eu's export lists with a schema the agent did not make: neither export gets it, eu's entry stays; served once that entry goes, without any other change", { timeout: 300_000 }, async () => {
    // Another provider's API in eu's export (its consumers are eu's tenants), under the same group+resource.
    const theirs = `v1.databases.${svc.group}`;
    const ars: APIResourceSchema = {
      metadata: { name: theirs },
      spec: { group: svc.group, names: { kind: 'Database', plural: 'databases', listKind: 'DatabaseList', singular: 'database' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }] },
    };
    must(await providerEu.create(apiResourceSchemas, ars));
    const before = must(await providerEu.get(apiExports, svc.exportName));
    must(await providerEu.update(apiExports, { ...before, spec: { ...before.spec, resources: [...(before.spec?.resources ?? []), { group: svc.group, name: 'databases', schema: theirs, storage: { crd: {} } }] } }));

    must(await svc.client.create(publishedResources, published(`again-${tag}`)));
    const refused = await readyCondition(`again-${tag}`, 'False');
    expect(refused.message).toContain(`installation "eu": sync config: 1 problem`);
    expect(refused.message).toContain(`lists databases.${svc.group} with schema ${theirs}, which agent "${svc.agentName}" did not make`);
    // The verdict is written after the publishers were given the set: neither export has the agent's entry.
    expect(entry(await exportOf(provider), svc.group)).toBeUndefined();
    expect(entry(await exportOf(providerEu), svc.group)).toBe(theirs);

    // That entry removed by its owner, and nothing else: the change of eu's export checks it again.
    const now = must(await providerEu.get(apiExports, svc.exportName));
    must(await providerEu.update(apiExports, { ...now, spec: { ...now.spec, resources: (now.spec?.resources ?? []).filter((r) => r.schema !== theirs) } }));
    await readyCondition(`again-${tag}`, 'True');
    const [ex, exEu] = await Promise.all([listing(provider, svc.group), listing(providerEu, svc.group, 120_000)]);
    expect(entry(exEu, svc.group)).toBe(entry(ex, svc.group));
    expect(entry(exEu, svc.group)).not.toBe(theirs);
  });

  it("with eu's kcp stopped (SIGSTOP), a deletion and a creation reach the default export; eu's export follows once it resumes, the deleted entry gone", { timeout: 600_000 }, async () => {
    const moved = `kcp.${svc.group}`;
    await kcpEu.pause();
    try {
      must(await svc.client.delete(publishedResources, `again-${tag}`));
      await without(provider, svc.group);
      must(await svc.client.create(publishedResources, published(`moved-${tag}`, { ...naming, projection: { group: moved } })));
      await listing(provider, moved);
      const served = await readyCondition(`moved-${tag}`, 'True');
      // Served, and saying where it is not checked yet: a misconfiguration never looks like success.
      expect(served.message).toContain(`served as databases.${moved}; not checked yet in installation "eu"`);
    } finally {
      kcpEu.resume();
    }
    // Checked again after a capped backoff (at most 60 s apart) once eu's kcp answers.
    const exEu = await exportWhere(providerEu, `listing databases.${moved} and not databases.${svc.group}`, (e) => entry(e, moved) !== undefined && entry(e, svc.group) === undefined, 300_000);
    expect(entry(exEu, moved)).toBe(entry(await exportOf(provider), moved));
    expect((await readyCondition(`moved-${tag}`, 'True')).message).toBe(`served as databases.${moved}`);
  });
});
