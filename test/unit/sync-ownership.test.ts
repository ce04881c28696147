// The tenancy proofs of the sync agent, piece by piece: the ownership check of what it reads and
// writes, the service-side names it derives for related objects, the references preflight refuses,
// the naming that could give two consumer objects one place, and the condition a refusal becomes.
import { describe, expect, it } from 'vitest';
import { resourceId } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { SourceIdentity } from '../../src/sinks/index.js';
import { sourceLabel, sourceUidAnnotation, withBackReference } from '../../src/sinks/index.js';
import { nextCondition, syncedConditionType, withCondition } from '../../packages/sync-agent/src/condition.js';
import { namingProblem, sharedSourceProblem } from '../../packages/sync-agent/src/naming-check.js';
import { claimsOwner, originProblem, ownerReferenceProblem, ownershipProblem } from '../../packages/sync-agent/src/ownership.js';
import { derivedRelatedName, relatedPlaces, relatedReferenceProblem, withDerivedReferences } from '../../packages/sync-agent/src/related-places.js';
import { database, dbKcp, dbService, plan, secret } from './sync-fixture.js';

const source = (cluster: string, name: string, uid: string, namespace = 'default'): SourceIdentity => ({ cluster: clusterName(cluster), resource: resourceId(dbKcp), namespace, name, uid });
const mine = source('ws-b', 'orders', 'u-b');
const claimed = (by: SourceIdentity): KubeObject => withBackReference(secret('shared', 'x', { password: 'YQ==' }), by);
const connection = plan.published.related?.[0];
if (connection === undefined) throw new Error('fixture');

describe('ownershipProblem', () => {
  it('accepts only a verified back-reference naming the exact consumer object: workspace, resource, namespace, name and uid', () => {
    expect(ownershipProblem('Secret', claimed(mine), mine, 'refuse')).toBeUndefined();
    for (const other of [{ ...mine, uid: 'u-a' }, { ...mine, cluster: clusterName('ws-a') }, { ...mine, namespace: 'team' }, { ...mine, name: 'other' }, { ...mine, resource: 'caches.example.dev' }]) {
      const p = ownershipProblem('Secret', claimed(other), mine, 'refuse');
      expect(p?.reason).toBe('Secret belongs to another object');
      expect(p?.detail).toContain(`not to ws-b/default/orders (uid u-b)`);
    }
  });

  it('refuses a forged back-reference whose label does not match its annotations, even where unmarked objects are accepted', () => {
    const real = claimed(mine);
    // The annotations say B's object, uid included; the label was copied from A's Secret.
    const forged: KubeObject = { ...real, metadata: { ...real.metadata, labels: { ...real.metadata.labels, [sourceLabel]: claimed(source('ws-a', 'orders', 'u-a')).metadata.labels?.[sourceLabel] ?? '' } } };
    expect(claimsOwner(forged)).toBe(true);
    expect(ownershipProblem('Secret', forged, mine, 'accept')?.reason).toBe('Secret carries a back-reference that does not verify');
    // One stray annotation is a claim too.
    const stray: KubeObject = { ...secret('shared', 'x', {}), metadata: { name: 'x', namespace: 'shared', annotations: { [sourceUidAnnotation]: 'u-b' } } };
    expect(ownershipProblem('Secret', stray, mine, 'accept')).toBeDefined();
  });

  it('an object with no back-reference at all is refused as a destination and accepted as an origin', () => {
    const plain = secret('default', 'conn', { password: 'YQ==' });
    expect(claimsOwner(plain)).toBe(false);
    expect(ownershipProblem('Secret', plain, mine, 'refuse')?.reason).toBe('Secret conn exists and was not made by the agent for this object');
    expect(ownershipProblem('Secret', plain, mine, 'accept')).toBeUndefined();
  });

  it('the reason for the consumer never names the other object; the detail for the log names both', () => {
    const victim = source('ws-a', 'victim-db', 'u-victim', 'team-a');
    const p = ownershipProblem('Secret', claimed(victim), mine, 'refuse');
    expect(p?.detail).toContain('ws-a/team-a/victim-db');
    expect(p?.reason).not.toMatch(/ws-a|team-a|victim|u-victim/);
  });
});

describe('ownerReferenceProblem and originProblem', () => {
  const copy: KubeObject = { metadata: { name: 'c', namespace: 'shared', uid: 'copy-b' } };
  const owned = (kind: string, apiVersion: string, uid: string): KubeObject => ({ ...secret('shared', 'x', {}), metadata: { name: 'x', namespace: 'shared', ownerReferences: [{ apiVersion, kind, name: 'o', uid }] } });

  it('refuses an origin owned by another object of the primary\'s kind, and accepts one owned by the primary or by something else', () => {
    const primary = { resource: dbService, object: copy };
    expect(ownerReferenceProblem('Secret', owned('Database', 'db.example.dev/v1', 'copy-a'), primary)?.reason).toBe('Secret is owned by another Database');
    expect(ownerReferenceProblem('Secret', owned('Database', 'db.example.dev/v1', 'copy-b'), primary)).toBeUndefined();
    expect(ownerReferenceProblem('Secret', owned('Database', 'other.dev/v1', 'copy-a'), primary)).toBeUndefined();
    expect(ownerReferenceProblem('Secret', owned('Deployment', 'apps/v1', 'd-1'), primary)).toBeUndefined();
    expect(originProblem('Secret', owned('Database', 'db.example.dev/v2', 'copy-a'), mine, primary)).toBeDefined();
    expect(originProblem('Secret', claimed(source('ws-a', 'orders', 'u-a')), mine, primary)).toBeDefined();
    expect(originProblem('Secret', secret('shared', 'x', {}), mine, primary)).toBeUndefined();
  });
});

describe('related places', () => {
  const consumer = (ns: string, name: string, conn: string): KubeObject => ({ ...database(name, { size: 1, connectionSecretName: conn }), metadata: { name, namespace: ns } });

  it('derives the service-side name from the consumer object, never from the name it writes', () => {
    const copy: KubeObject = { metadata: { name: 'c', namespace: 'shared' }, spec: { connectionSecretName: 'anything' } };
    const a = relatedPlaces(plan, connection, 'ws-a', consumer('default', 'orders', 'a-conn'), copy);
    const bNamingA = relatedPlaces(plan, connection, 'ws-b', consumer('default', 'orders', 'a-conn'), copy);
    expect(a.kcp).toEqual({ type: 'named', name: 'a-conn' });
    expect(bNamingA.kcp).toEqual({ type: 'named', name: 'a-conn' });
    expect(a.service).not.toEqual(bNamingA.service);
    // Two namespaces of one workspace; a rename keeps the service-side name.
    const team = relatedPlaces(plan, connection, 'ws-a', consumer('team', 'orders', 'a-conn'), copy);
    expect(team.service).not.toEqual(a.service);
    expect(relatedPlaces(plan, connection, 'ws-a', consumer('default', 'orders', 'renamed'), copy).service).toEqual(a.service);
    // Not set yet on the consumer: not set on either side.
    expect(relatedPlaces(plan, connection, 'ws-a', database('orders', { size: 1 }), copy).service.type).toBe('missing');
    expect(derivedRelatedName(plan, connection, 'ws-a', { namespace: 'default', name: 'orders' })).toMatch(/^[0-9a-f]{20}-[0-9a-f]{8}$/);
  });

  it('writes the derived names into the copy where the consumer set a reference, and nowhere else', () => {
    const obj = consumer('default', 'orders', 'a-conn');
    const out = withDerivedReferences(plan, 'ws-a', obj, { spec: { size: 1, connectionSecretName: 'a-conn' } });
    expect(out).toEqual({ spec: { size: 1, connectionSecretName: derivedRelatedName(plan, connection, 'ws-a', { namespace: 'default', name: 'orders' }) } });
    expect(withDerivedReferences(plan, 'ws-a', database('x', { size: 1 }), { spec: { size: 1 } })).toEqual({ spec: { size: 1 } });
  });

  it('refuses references a consumer could point at another object\'s related object, and accepts the rest', () => {
    expect(relatedReferenceProblem({ path: 'spec.connectionSecretName' })).toBeUndefined();
    expect(relatedReferenceProblem({ path: 'status.secretName' })).toBeUndefined();
    expect(relatedReferenceProblem({ path: 'metadata.name' })).toBeUndefined();
    expect(relatedReferenceProblem({ path: 'metadata.annotations.secret' })).toContain('only metadata.name');
    expect(relatedReferenceProblem({ template: '{{ .Object.metadata.name }}-conn' })).toBeUndefined();
    expect(relatedReferenceProblem({ template: '{{ .Object.status.conn }}' })).toBeUndefined();
    expect(relatedReferenceProblem({ template: '{{ .Object.spec.secret }}' })).toContain('reads .Object.spec.secret, which the consumer writes');
    expect(relatedReferenceProblem({ template: '{{ .ClusterName }}-conn' })).toContain('every object of a namespace would name the same related object');
  });
});

describe('naming checks', () => {
  const p = { name: 'dbs', crd: { group: 'db.example.dev', kind: 'Database' } };

  it('accepts the default naming and refuses templates that cannot tell workspaces, namespaces or names apart', () => {
    expect(namingProblem(p, true)).toBeUndefined();
    expect(namingProblem({ ...p, naming: { namespace: 'shared', name: '{{ .ClusterName }}-{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' } }, true)).toBeUndefined();
    // The shared namespace with the default name: two workspaces' default/orders would meet.
    expect(namingProblem({ ...p, naming: { namespace: 'shared' } }, true)).toContain('never read .ClusterName, so objects in different workspaces');
    expect(namingProblem({ ...p, naming: { name: '{{ .Object.metadata.name }}' } }, true)).toContain('.Object.metadata.namespace');
    // A fixed namespace filter, or a cluster-scoped resource, needs no namespace.
    expect(namingProblem({ ...p, naming: { name: '{{ .Object.metadata.name }}' }, filter: { namespace: 'apps' } }, true)).toBeUndefined();
    expect(namingProblem({ ...p, naming: { name: '{{ .Object.metadata.name }}' } }, false)).toContain('never read .ClusterName');
  });

  it('refuses one CRD published twice, naming both entries', () => {
    const config = [p, { ...p, name: 'other' }, { ...p, name: 'caches', crd: { group: 'db.example.dev', kind: 'Cache' } }];
    expect(config.map((_, i) => sharedSourceProblem(config, i))).toEqual([
      undefined,
      'publishes CRD Database.db.example.dev, as published[0] "dbs" does; their copies would share names on the service cluster, so a CRD is published once',
      undefined,
    ]);
  });
});

describe('the Synced condition', () => {
  const refusal = { key: { cluster: clusterName('ws-b'), namespace: 'default', name: 'conn' }, detail: 'names ws-a', reason: 'related "connection" (Secret conn in this workspace): Secret belongs to another object' };
  const at = new Date('2025-01-02T03:04:05.678Z');

  it('appears False on a refusal, turns True when it clears, keeps its transition time while it stays, and is absent for objects never refused', () => {
    const obj = database('orders', { size: 1 }, { generation: 4 });
    expect(nextCondition([], obj, at)).toBeUndefined();
    const refused = nextCondition([refusal, refusal], obj, at);
    expect(refused).toEqual({ type: syncedConditionType, status: 'False', reason: 'Refused', message: `refused by the sync agent: ${refusal.reason}`, lastTransitionTime: '2025-01-02T03:04:05Z', observedGeneration: 4 });
    const withIt = { ...obj, status: withCondition({ phase: 'Ready' }, refused) } as KubeObject;
    expect(nextCondition([refusal], withIt, new Date('2030-01-01T00:00:00Z'))?.lastTransitionTime).toBe('2025-01-02T03:04:05Z');
    const cleared = nextCondition([], withIt, new Date('2030-01-01T00:00:00Z'));
    expect(cleared).toMatchObject({ status: 'True', reason: 'Synced', lastTransitionTime: '2030-01-01T00:00:00Z' });
  });

  it('goes next to the service\'s own conditions, replacing only its own', () => {
    const theirs = { type: 'Ready', status: 'True' };
    const c = nextCondition([refusal], database('o', { size: 1 }), at);
    const once = withCondition({ phase: 'Ready', conditions: [theirs] }, c);
    expect(withCondition(once, c)).toEqual({ phase: 'Ready', conditions: [theirs, c] });
    expect(withCondition({ phase: 'Ready' }, undefined)).toEqual({ phase: 'Ready' });
  });
});
