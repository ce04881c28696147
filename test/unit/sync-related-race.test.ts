// The race behind two consumer objects of one namespace naming one related Secret at the same
// instant (issue 28): each reconcile finds the Secret absent in its cache, so the second one's
// write must not land on the first one's copy, which the cache has not seen yet. Played on the
// in-memory fleet with the cache held stale: the workspace already holds A's copy, B's reconcile
// is shown none. Nothing of B may reach the name, and the key must be tried again (not given up).
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceDescriptor, Secret } from '../../src/index.js';
import { actionOf, clusterName, secrets } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { readBackReference, sinkContext, sourceIdentity, withBackReference } from '../../src/sinks/index.js';
import { serviceCluster } from '../../packages/sync-agent/src/clusters.js';
import type { RelatedResult } from '../../packages/sync-agent/src/related.js';
import { syncRelated } from '../../packages/sync-agent/src/related.js';
import type { SyncCaches } from '../../packages/sync-agent/src/sync-caches.js';
import { agentFleet, database, dbKcp, plan, relatedName, secret } from './sync-fixture.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const connection = plan.published.related?.find((r) => r.identifier === 'connection');

describe('sync related copy: two objects naming one Secret at the same instant', () => {
  it("a reconcile whose cache has not seen the other object's copy yet writes nothing over it, and is retried", async () => {
    if (connection === undefined) throw new Error('the fixture has no connection Secret');
    const workspace = clusterName('ws-a');
    const a = { ...database('a', { size: 1, connectionSecretName: 'shared' }), metadata: { name: 'a', namespace: 'default', uid: 'uid-a' } };
    const b = { ...database('b', { size: 1, connectionSecretName: 'shared' }), metadata: { name: 'b', namespace: 'default', uid: 'uid-b' } };
    // A's reconcile got there first: the workspace holds A's copy, A's endpoint in it.
    const aCopy = withBackReference(secret('default', 'shared', { endpoint: b64('a.svc') }), sourceIdentity(workspace, dbKcp, a));
    const fleet = agentFleet({ 'ws-a': [aCopy] });
    const sinks = sinkContext({ clusters: fleet.sinkClusters, fieldManager: plan.agentName });
    // B's side on the service cluster: its copy, and the operator's Secret for it at the derived name.
    const bCopy: KubeObject = withBackReference({ apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name: 'b-copy', namespace: 'ws-a', uid: 'uid-b-copy' } }, sourceIdentity(workspace, dbKcp, b));
    const bOrigin = secret('ws-a', relatedName('ws-a', b, 'connection'), { endpoint: b64('b.svc') });
    // B's cache: its service Secret listed, the workspace's `shared` not seen yet.
    const caches: SyncCaches = {
      ready: () => true,
      relatedReady: () => true,
      copy: () => undefined,
      copiesIn: () => [bCopy],
      namespace: () => undefined,
      related: (cluster: string, _r: ResourceDescriptor, namespace: string, name: string) => (cluster === serviceCluster && namespace === 'ws-a' && name === bOrigin.metadata.name ? bOrigin : undefined),
      relatedIn: () => [],
      primariesIn: () => [],
      primaries: () => [],
      logicalCluster: (c) => c,
    };
    const results: RelatedResult[] = await lastValueFrom(syncRelated(sinks, plan, caches, { workspace, logicalCluster: 'ws-a', consumer: b, copy: bCopy }, connection, sourceIdentity(workspace, dbKcp, b)).pipe(toArray()));

    // The name still holds A's copy: A's owner, A's endpoint.
    const held = fleet.object<Secret>('ws-a', secrets, 'default/shared');
    expect(readBackReference(held ?? aCopy)?.uid).toBe('uid-a');
    expect(held?.data?.endpoint).toBe(b64('a.svc'));
    // B's write was refused by the server and is retried (the next reconcile reads A's copy and refuses it).
    const outcomes = results.flatMap((r) => (r.type === 'write' ? [r.outcome] : []));
    expect(outcomes).toHaveLength(1);
    const outcome = outcomes[0];
    expect(outcome !== undefined && E.isLeft(outcome) ? outcome.left.type : 'written').toBe('Conflict');
    expect(outcome === undefined ? undefined : actionOf(outcome)).toMatchObject({ type: 'error' });
  });
});
