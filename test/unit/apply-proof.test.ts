// The proof that an apply would change nothing (src/sinks/apply-proof.ts), on the field sets the
// API server writes: every shape it proves, and every shape it must leave to a real apply.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { applyChangesNothing } from '../../src/sinks/index.js';

const FM = 'bench-peer';
type Entry = Record<string, unknown>;
const entry = (fieldsV1: object, extra: Entry = {}): Entry => ({ manager: FM, operation: 'Apply', apiVersion: 'v1', time: '2026-11-27T08:00:00Z', fieldsType: 'FieldsV1', fieldsV1, ...extra });
const obj = (body: object, managedFields: readonly Entry[], meta: object = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x-out', namespace: 'ns', resourceVersion: '42', uid: 'u', annotations: { 'kcp.io/cluster': 'root:a', 'bench.rxfleet.io/source': 'x' }, managedFields, ...meta }, ...body });

// The bench's output, as kube-apiserver records it.
const applied = { metadata: { name: 'x-out', namespace: 'ns', annotations: { 'bench.rxfleet.io/source': 'x' } }, data: { a: '1', b: '2' } };
const owned = { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { 'f:bench.rxfleet.io/source': {} } } };
const proof = (a: object, cached: KubeObject, subresource?: 'status', apiVersion = 'v1') => applyChangesNothing({ applied: a as { metadata: object }, cached, fieldManager: FM, apiVersion, subresource });
const reason = (a: object, cached: KubeObject, subresource?: 'status'): string => {
  const p = proof(a, cached, subresource);
  return p.proven ? 'proven' : p.reason;
};

describe('applyChangesNothing', () => {
  it('should prove an apply whose fields this manager owns, all holding the applied values (other managers and server fields beside them)', () => {
    const other = { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:c': {} } } };
    expect(proof(applied, obj({ data: { a: '1', b: '2', c: 'theirs' } }, [entry(owned), other]))).toEqual({ proven: true });
    expect(proof({ apiVersion: 'v1', kind: 'ConfigMap', ...applied }, obj({ data: { a: '1', b: '2' } }, [entry(owned)]))).toEqual({ proven: true });
  });

  it('should not prove a value that drifted, a field missing, or a field another manager took', () => {
    expect(reason(applied, obj({ data: { a: '1', b: 'drifted' } }, [entry(owned)]))).toMatch(/data\.b: the cached value differs/);
    expect(reason(applied, obj({ data: { a: '1' } }, [entry(owned)]))).toMatch(/data\.b: the cached value differs/);
    const taken = { 'f:data': { 'f:a': {} }, 'f:metadata': owned['f:metadata'] };
    expect(reason(applied, obj({ data: { a: '1', b: '2' } }, [entry(taken)]))).toMatch(/data\.b: this manager does not own it/);
    expect(reason(applied, obj({ data: 'oops' }, [entry(owned)]))).toMatch(/data: the cached value is not an object/);
  });

  it('should not prove an apply that no longer states a field this manager owns (a real apply removes it)', () => {
    const smaller = { ...applied, data: { a: '1' } };
    expect(reason(smaller, obj({ data: { a: '1', b: '2' } }, [entry(owned)]))).toMatch(/owns f:b, which the apply no longer states/);
    const noAnnotations = { metadata: { name: 'x-out', namespace: 'ns' }, data: { a: '1', b: '2' } };
    expect(reason(noAnnotations, obj({ data: { a: '1', b: '2' } }, [entry(owned)]))).toMatch(/owns f:metadata/);
  });

  it('should prove an apply whose entry also owns the maps it states themselves (`.`: a deduced schema, as kcp virtual workspaces record it)', () => {
    const deduced = { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:bench.rxfleet.io/source': {} } } };
    expect(proof(applied, obj({ data: { a: '1', b: '2' } }, [entry(deduced)]))).toEqual({ proven: true });
    // The map itself owned, but a key in it no longer stated: a real apply removes that key.
    expect(reason({ ...applied, data: { a: '1' } }, obj({ data: { a: '1', b: '2' } }, [entry(deduced)]))).toMatch(/owns f:b, which the apply no longer states/);
    // The map owned and not stated at all: a real apply removes it.
    expect(reason({ metadata: applied.metadata }, obj({ data: { a: '1', b: '2' } }, [entry(deduced)]))).toMatch(/owns f:data, which the apply no longer states/);
  });

  it('should use only this manager’s Apply entry of the same subresource and apiVersion', () => {
    const data = { data: { a: '1', b: '2' } };
    expect(reason(applied, obj(data, []))).toMatch(/no Apply entry of bench-peer/);
    expect(reason(applied, obj(data, [entry(owned, { manager: 'someone-else' })]))).toMatch(/no Apply entry/);
    expect(reason(applied, obj(data, [entry(owned, { operation: 'Update' })]))).toMatch(/no Apply entry/);
    expect(reason(applied, obj(data, [entry(owned, { subresource: 'status' })]))).toMatch(/no Apply entry/);
    expect(reason(applied, obj(data, [entry(owned), entry(owned)]))).toMatch(/2 Apply entries/);
    expect(reason(applied, obj(data, [entry(owned, { apiVersion: 'v1beta1' })]))).toMatch(/applied with v1beta1/);
    expect(reason(applied, obj(data, [entry(owned, { fieldsType: 'FieldsV2' })]))).toMatch(/no FieldsV1/);
    expect(proof(applied, obj(data, [entry(owned)]), undefined, 'v2')).toMatchObject({ proven: false });
    expect(reason({ apiVersion: 'v2', ...applied }, obj(data, [entry(owned)]))).toMatch(/another apiVersion/);
  });

  it('should prove a status apply from the status entry only, and refuse one stating more than status', () => {
    const status = { metadata: { name: 'x-out', namespace: 'ns' }, status: { ready: true, replicas: 3 } };
    const statusOwned = { 'f:status': { 'f:ready': {}, 'f:replicas': {} } };
    const cached = obj({ status: { ready: true, replicas: 3, observed: 1 } }, [entry(statusOwned, { subresource: 'status' })]);
    expect(proof(status, cached, 'status')).toEqual({ proven: true });
    expect(reason(status, cached)).toMatch(/no Apply entry/);
    expect(reason(status, obj({ status: { ready: true, replicas: 3 } }, [entry(statusOwned)]), 'status')).toMatch(/no Apply entry of bench-peer for status/);
    expect(reason({ ...status, spec: { x: 1 } }, cached, 'status')).toMatch(/a status apply that states spec/);
    expect(reason({ ...status, metadata: { ...status.metadata, labels: { a: 'b' } } }, cached, 'status')).toMatch(/states labels/);
  });

  it('should compare a list owned as a leaf (atomic) whole', () => {
    const a = { metadata: { name: 'x-out', namespace: 'ns' }, spec: { args: ['--a', '--b'] } };
    const o = { 'f:spec': { 'f:args': {} } };
    expect(proof(a, obj({ spec: { args: ['--a', '--b'] } }, [entry(o)]))).toEqual({ proven: true });
    expect(reason(a, obj({ spec: { args: ['--b', '--a'] } }, [entry(o)]))).toMatch(/spec\.args: the cached value differs/);
    // A map owned as a leaf is an atomic map (a label selector): the whole map must match.
    const sel = { metadata: { name: 'x-out', namespace: 'ns' }, spec: { selector: { matchLabels: { app: 'w' } } } };
    const so = { 'f:spec': { 'f:selector': {} } };
    expect(proof(sel, obj({ spec: { selector: { matchLabels: { app: 'w' } } } }, [entry(so)]))).toEqual({ proven: true });
    expect(reason(sel, obj({ spec: { selector: { matchLabels: { app: 'w', extra: 'x' } } } }, [entry(so)]))).toMatch(/differs/);
  });

  it('should prove a keyed list (containers by name) item by item, in the same order, and refuse other shapes of it', () => {
    const a = { metadata: { name: 'x-out', namespace: 'ns' }, spec: { containers: [{ name: 'web', image: 'nginx' }, { name: 'side', image: 'envoy' }] } };
    const o = {
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:image': {} },
          'k:{"name":"side"}': { '.': {}, 'f:name': {}, 'f:image': {} },
        },
      },
    };
    const defaulted = (image = 'nginx') => ({ spec: { containers: [{ name: 'web', image, imagePullPolicy: 'Always' }, { name: 'side', image: 'envoy', imagePullPolicy: 'Always' }] } });
    expect(proof(a, obj(defaulted(), [entry(o)]))).toEqual({ proven: true });
    expect(reason(a, obj(defaulted('nginx:2'), [entry(o)]))).toMatch(/spec\.containers\[0\]\.image: the cached value differs/);
    const swapped = { spec: { containers: [...defaulted().spec.containers].reverse() } };
    expect(reason(a, obj(swapped, [entry(o)]))).toMatch(/item 0 is not one item this manager owns/);
    const theirs = { spec: { containers: [...defaulted().spec.containers, { name: 'theirs', image: 'x' }] } };
    expect(reason(a, obj(theirs, [entry(o)]))).toMatch(/does not hold exactly the applied items/);
    const noSelf = { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:name': {}, 'f:image': {} }, 'k:{"name":"side"}': { '.': {}, 'f:name': {}, 'f:image': {} } } } };
    expect(reason(a, obj(defaulted(), [entry(noSelf)]))).toMatch(/does not own item 0 itself/);
    const byIndex = { 'f:spec': { 'f:containers': { 'i:0': { '.': {} }, 'i:1': { '.': {} } } } };
    expect(reason(a, obj(defaulted(), [entry(byIndex)]))).toMatch(/owned by index/);
    const fewer = { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': o['f:spec']['f:containers']['k:{"name":"web"}'] } } };
    expect(reason(a, obj(defaulted(), [entry(fewer)]))).toMatch(/owns 1 items, the apply states 2/);
  });

  it('should prove a set (finalizers) only when the cached list is exactly the applied one', () => {
    const a = { metadata: { name: 'x-out', namespace: 'ns', finalizers: ['a.io/f', 'b.io/f'] } };
    const o = { 'f:metadata': { 'f:finalizers': { 'v:"a.io/f"': {}, 'v:"b.io/f"': {} } } };
    expect(proof(a, obj({}, [entry(o)], { finalizers: ['a.io/f', 'b.io/f'] }))).toEqual({ proven: true });
    expect(reason(a, obj({}, [entry(o)], { finalizers: ['a.io/f', 'b.io/f', 'c.io/theirs'] }))).toMatch(/does not hold exactly/);
    expect(reason(a, obj({}, [entry({ 'f:metadata': { 'f:finalizers': { 'v:"a.io/f"': {}, 'v:"c.io/f"': {} } } })], { finalizers: ['a.io/f', 'b.io/f'] }))).toMatch(/does not own the item "b\.io\/f"/);
    expect(reason(a, obj({}, [entry(o)], { finalizers: ['b.io/f', 'a.io/f'] }))).toMatch(/item 0 differs/);
  });

  it('should give up on shapes whose ownership depends on the schema, and on server-set or terminating objects', () => {
    const data = { data: { a: '1', b: '2' } };
    expect(reason({ ...applied, data: {} }, obj(data, [entry(owned)]))).toMatch(/an empty map/);
    expect(reason({ metadata: applied.metadata, spec: { args: [] } }, obj({ spec: { args: [] } }, [entry({ 'f:spec': { 'f:args': {} } })]))).toMatch(/an empty list/);
    expect(reason({ ...applied, data: { a: null, b: '2' } }, obj(data, [entry(owned)]))).toMatch(/a null value/);
    expect(reason({ ...applied, metadata: { ...applied.metadata, resourceVersion: '42' } }, obj(data, [entry(owned)]))).toMatch(/server-set metadata/);
    expect(reason(applied, obj(data, [entry(owned)], { deletionTimestamp: '2026-11-27T08:00:00Z' }))).toMatch(/being deleted/);
    expect(reason({ metadata: { name: 'x-out', namespace: 'ns' } }, obj(data, [entry(owned)]))).toMatch(/states no field/);
    expect(reason(applied, { ...obj(data, [entry(owned)]), apiVersion: 'v2' })).toMatch(/cached object is v2/);
  });

  it('should compare numbers and booleans as JSON values', () => {
    const a = { metadata: { name: 'x-out', namespace: 'ns' }, spec: { replicas: 3, paused: false, ratio: 0.5 } };
    const o = { 'f:spec': { 'f:replicas': {}, 'f:paused': {}, 'f:ratio': {} } };
    expect(proof(a, obj({ spec: { replicas: 3, paused: false, ratio: 0.5 } }, [entry(o)]))).toEqual({ proven: true });
    expect(reason(a, obj({ spec: { replicas: '3', paused: false, ratio: 0.5 } }, [entry(o)]))).toMatch(/replicas: the cached value differs/);
    expect(reason(a, obj({ spec: { replicas: 3, paused: false, ratio: 0.5 } }, [entry({ 'f:spec': { 'f:replicas': { 'f:x': {} }, 'f:paused': {}, 'f:ratio': {} } })]))).toMatch(/a scalar owned as a tree/);
  });
});
