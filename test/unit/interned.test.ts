// Interning repeated metadata strings as objects are prepared for the cache: values unchanged, the
// table bounded whatever the churn, and frozen input never written to.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { internedCount, internMaxLength, interned, internTableLimit } from '../../src/streams/interned.js';
import { preparedObject } from '../../src/streams/prepared-object.js';

describe('interned metadata strings', () => {
  it('leaves every value as it was, and keeps the table within its limit under churn', () => {
    const long = 'x'.repeat(internMaxLength + 1);
    expect(interned(long)).toBe(long);
    for (let i = 0; i < internTableLimit * 3; i++) interned(`cluster-${i}`);
    expect(internedCount()).toBeGreaterThan(0);
    expect(internedCount()).toBeLessThanOrEqual(internTableLimit);
    const wire = JSON.parse('{"apiVersion":"wildwest.dev/v1alpha1","kind":"Widget","metadata":{"name":"a","namespace":"default","labels":{"app":"web"},"annotations":{"kcp.io/cluster":"2x9kq3hbl7lvmv3b","n":"5"}},"data":{"k":"v"}}') as ConfigMap;
    const before = JSON.stringify(wire);
    const out = preparedObject(wire, false);
    expect(JSON.stringify(out)).toBe(before);
    expect(Object.isFrozen(out.metadata.annotations)).toBe(true);
  });

  it('copies, and never writes into, an object someone froze', () => {
    const frozen = Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name: 'a', namespace: 'default', labels: Object.freeze({ app: 'web' }), managedFields: Object.freeze([]) }) }) as unknown as ConfigMap;
    const out = preparedObject(frozen, false);
    expect(out.metadata.labels).toEqual({ app: 'web' });
    expect(out.metadata.managedFields).toBeUndefined();
  });
});
