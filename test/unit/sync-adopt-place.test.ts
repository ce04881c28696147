// Where an adopted consumer object's copy is (adopt-place.ts): its annotations say where, the
// service object proves it. A consumer object whose annotations name a service object that belongs
// to another consumer object, or is another object than the one adopted, is refused with a reason
// that names nothing of the other object; one whose adoption has not finished waits.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { sourceIdentity, withBackReference } from '../../src/sinks/index.js';
import { adoptedFromAnnotation, adoptedPlace, adoptedUidAnnotation } from '../../packages/sync-agent/src/adopt-place.js';
import type { SyncCaches } from '../../packages/sync-agent/src/sync-caches.js';
import { database, dbKcp, plan } from './sync-fixture.js';

const consumer = (annotations: Record<string, string> | undefined, uid = 'u-a'): KubeObject => database('orders', { size: 1 }, { namespace: 'default', uid, ...(annotations === undefined ? {} : { annotations }) });
const adopted = consumer({ [adoptedFromAnnotation]: 'legacy/orders', [adoptedUidAnnotation]: 's-1' });
const source = sourceIdentity(clusterName('ws-a'), dbKcp, adopted);
const serviceObject = (extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ metadata: { name: 'orders', namespace: 'legacy', uid: 's-1', ...extra } });
const caches = (copies: readonly KubeObject[]): SyncCaches => ({ copy: (ns: string, name: string) => copies.find((c) => c.metadata.namespace === ns && c.metadata.name === name) }) as unknown as SyncCaches;

describe('adoptedPlace', () => {
  it('an object without the annotation is not adopted: the naming templates place it', () => {
    expect(adoptedPlace(plan, caches([]), consumer(undefined), source)).toEqual({ type: 'not-adopted' });
  });

  it('the copy is the service object once its back-reference names this consumer object, uid included', () => {
    expect(adoptedPlace(plan, caches([withBackReference(serviceObject(), source)]), adopted, source)).toEqual({ type: 'at', at: { namespace: 'legacy', name: 'orders' } });
  });

  it('an adoption that has not written its back-reference yet waits, writing nothing', () => {
    expect(adoptedPlace(plan, caches([]), adopted, source).type).toBe('pending');
    expect(adoptedPlace(plan, caches([serviceObject()]), adopted, source).type).toBe('pending');
  });

  it("annotations naming another workspace's copy, or another object of that name, are refused without naming it to the consumer", () => {
    const other = sourceIdentity(clusterName('ws-b'), dbKcp, consumer(undefined, 'u-b'));
    const theirs = adoptedPlace(plan, caches([withBackReference(serviceObject(), other)]), adopted, source);
    expect(theirs).toMatchObject({ type: 'refused', at: { namespace: 'legacy', name: 'orders' } });
    if (theirs.type !== 'refused') throw new Error('not refused');
    expect(theirs.detail).toContain('ws-b/default/orders');
    expect(theirs.reason).not.toContain('ws-b');
    // Another incarnation of the consumer object (another uid) does not own it either.
    const earlier = sourceIdentity(clusterName('ws-a'), dbKcp, consumer(undefined, 'u-old'));
    expect(adoptedPlace(plan, caches([withBackReference(serviceObject(), earlier)]), adopted, source).type).toBe('refused');
    // An unmarked service object that is not the one adopted (another uid).
    expect(adoptedPlace(plan, caches([serviceObject({ uid: 's-2' })]), adopted, source).type).toBe('refused');
  });
});
