// What a cache keeps of managedFields for `apply` to prove a write needless: the Apply entries of
// its own field managers, nothing else, whether the object came from a watch line or a list.
import { describe, expect, it } from 'vitest';
import { keptManagedFields } from '../../src/client/managed-fields-cut.js';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { preparedObject } from '../../src/streams/prepared-object.js';

const east = clusterName('east');
const own = { manager: 'ctl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } };
const ownUpdate = { manager: 'ctl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:u': {} } } };
const theirs = { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:z': {} } } };
const line = (managedFields: readonly object[]): string =>
  JSON.stringify({ type: 'MODIFIED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'd', managedFields }, data: { k: 'v' } } });
const parsed = (text: string, keep?: readonly string[]): ConfigMap => {
  const r = parseWatchLine<ConfigMap>(east, text, { dropManagedFields: true, ...(keep === undefined ? {} : { keepApplyEntriesOf: keep }) });
  if (E.isLeft(r)) throw new Error(r.left.message);
  return r.right.object;
};

describe('managedFields kept for the proof of needless applies', () => {
  it('keeps only the Apply entries of the given managers from a watch line, and nothing when none is theirs', () => {
    expect(parsed(line([theirs, own, ownUpdate]), ['ctl']).metadata.managedFields).toEqual([own]);
    expect(parsed(line([theirs, ownUpdate]), ['ctl']).metadata).not.toHaveProperty('managedFields');
    expect(parsed(line([theirs, own]))).not.toHaveProperty('metadata.managedFields');
    expect(parsed(line([theirs, own]), ['ctl', 'kubectl']).metadata.managedFields).toEqual([theirs, own]);
  });

  it('parses the cut text only when it names a manager kept, and a broken one keeps nothing', () => {
    expect(keptManagedFields(JSON.stringify([theirs]), ['ctl'])).toBeUndefined();
    expect(keptManagedFields('[{"manager":"ctl",', ['ctl'])).toBeUndefined();
    expect(keptManagedFields(JSON.stringify([own]), [])).toBeUndefined();
  });

  it('keeps the same entries of a listed object (parsed whole), and rebuilds nothing when they are all that is there', () => {
    const listed = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd', managedFields: [theirs, own, ownUpdate] }, data: { k: 'v' } } as ConfigMap;
    const prepared = preparedObject(listed, false, ['ctl']);
    expect(prepared.metadata.managedFields).toEqual([own]);
    expect(Object.isFrozen(prepared.metadata.managedFields)).toBe(true);
    const alreadyCut = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [own] } } as ConfigMap;
    const metadata = alreadyCut.metadata;
    expect(preparedObject(alreadyCut, false, ['ctl']).metadata).toBe(metadata);
    expect(preparedObject({ ...listed, metadata: { ...listed.metadata } }, false).metadata).not.toHaveProperty('managedFields');
  });
});
