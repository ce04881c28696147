// A related resource whose group and resource differ between kcp and the service cluster (issue 28
// item 4: `related[].projection`), on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its
// own process: a Lease in the workspace becomes a Token (a CRD of the service's) on the service
// cluster, and an operator's Token becomes a Lease in the workspace. Every check reads the data that
// arrived.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import type { Lease } from '../../src/resources/index.js';
import { customResourceDefinitions, leases } from '../../src/resources/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { claimNames, relatedScenario } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

type Db = Database & { readonly spec: Database['spec'] & { readonly configName?: string } };
type Token = KubeObject & { readonly spec?: { readonly holderIdentity?: string } };

const tokenGroup = `tok${randomBytes(4).toString('hex')}.example.dev`;
const tokens = resource<Token>({ group: tokenGroup, version: 'v1', plural: 'tokens', kind: 'Token', namespaced: true });

const config = (side: TenancyService): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  syncUp: false,
  related: [
    { identifier: 'lock', origin: 'kcp', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', projection: { group: tokenGroup, resource: 'tokens' }, object: { path: 'spec.configName' } },
    { identifier: 'grant', origin: 'service', group: tokenGroup, version: 'v1', resource: 'tokens', projection: { group: 'coordination.k8s.io', resource: 'leases' }, object: { path: 'spec.connectionSecretName' } },
  ],
});

/** The service's Token CRD, served. */
async function tokensOnTheService(side: TenancyService): Promise<void> {
  must(await side.client.apply(customResourceDefinitions, {
    metadata: { name: `tokens.${tokenGroup}` },
    spec: { group: tokenGroup, scope: 'Namespaced', names: { plural: 'tokens', singular: 'token', kind: 'Token', listKind: 'TokenList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }, { fieldManager: 'test', force: true }));
  await waitFor('tokens served on the service cluster', async () => (E.isRight(await side.client.list(tokens, { limit: 1 })) ? true : undefined));
}

const s = relatedScenario<Db>({ consumers: 1, config, beforeWorkspaces: tokensOnTheService });

describe('rxfleet-sync-agent: related objects projected to another resource on the other side', () => {
  it('the export claims the kcp side\'s resource only', () => {
    expect(claimNames(s.exported.spec?.permissionClaims ?? [])).toEqual(['leases.coordination.k8s.io']);
  });

  it('a Lease goes down as a Token, and a Token comes up as a Lease, each with its contents and back-reference', async () => {
    must(await s.a.client.create(leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'a-lock', namespace: 'default' }, spec: { holderIdentity: 'tenant-a' } }));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-lock', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    const copy = await s.copyOf(s.a, 'orders');
    const down = await waitFor('the Token on the service cluster', async () => {
      const t = await getOrUndefined<Token>(s.svc.client, tokens, copy.spec.configName ?? '', s.svc.sharedNamespace);
      return t?.spec?.holderIdentity === 'tenant-a' ? t : undefined;
    }, { context: s.context });
    expect(down.kind).toBe('Token');
    expect(backRef(down)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    must(await s.svc.client.create(tokens, { apiVersion: `${tokenGroup}/v1`, kind: 'Token', metadata: { name: copy.spec.connectionSecretName ?? '', namespace: s.svc.sharedNamespace }, spec: { holderIdentity: 'granted-to-a' } }));
    const up = await waitFor('the Lease in the workspace', async () => {
      const l = await getOrUndefined<Lease>(s.a.client, leases, 'a-grant', 'default');
      return l?.spec?.holderIdentity === 'granted-to-a' ? l : undefined;
    }, { context: s.context });
    expect(backRef(up)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
  });
});
