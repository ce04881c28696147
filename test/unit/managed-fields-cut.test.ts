// managedFields cut out of a watch line's text before the parse: exactly the event object's own,
// and nothing at all when in doubt (the object is then stripped after the parse, as before).
import { describe, expect, it } from 'vitest';
import { withoutManagedFieldsText } from '../../src/client/managed-fields-cut.js';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { preparedObject } from '../../src/streams/prepared-object.js';

const east = clusterName('east');
// Field manager entries as the API server writes them, with quotes, brackets and braces inside strings.
const managed = '[{"manager":"kubectl \\"x\\" [1]","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"k:{\\"name\\":\\"c]\\"}":{}}}}]';
const line = (metadata: string, rest = ''): string => `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":${metadata}${rest}}}`;

describe('managedFields cut from the watch line text', () => {
  it('cuts the event object own managedFields and leaves the rest of the line intact', () => {
    const text = line(`{"name":"a","labels":{"x":"{[\\"]}"},"managedFields":${managed},"uid":"u"}`, ',"data":{"k":"v"}');
    const cut = withoutManagedFieldsText(text);
    expect(JSON.parse(cut)).toEqual({
      type: 'ADDED',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', labels: { x: '{["]}' }, uid: 'u' }, data: { k: 'v' } },
    });
  });

  it('cuts managedFields placed last in metadata, as the API server writes them', () => {
    const cut = withoutManagedFieldsText(line(`{"name":"a","managedFields":${managed}}`));
    expect(JSON.parse(cut)).toEqual({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } } });
  });

  it('leaves a nested ObjectMeta alone (a pod template in a spec)', () => {
    const text = `{"type":"ADDED","object":{"metadata":{"name":"d"},"spec":{"template":{"metadata":{"name":"p","managedFields":${managed}}}}}}`;
    expect(withoutManagedFieldsText(text)).toBe(text);
  });

  it('leaves lines it cannot be sure of unchanged: managedFields first, inside a string, or cut short', () => {
    const first = line(`{"managedFields":${managed},"name":"a"}`);
    expect(withoutManagedFieldsText(first)).toBe(first);
    const inString = line(`{"name":"a","annotations":{"note":"x\\",\\"managedFields\\":[1]"}}`);
    expect(withoutManagedFieldsText(inString)).toBe(inString);
    const short = line(`{"name":"a","managedFields":[{"manager":"m"`).slice(0, -2);
    expect(withoutManagedFieldsText(short)).toBe(short);
  });

  it('gives the same prepared object whether managedFields go before or after the parse', () => {
    const text = line(`{"name":"a","namespace":"n","managedFields":${managed},"resourceVersion":"3"}`, ',"data":{"k":"v"}');
    const parse = (dropManagedFields: boolean): ConfigMap => {
      const r = parseWatchLine<ConfigMap>(east, text, { dropManagedFields });
      if (E.isLeft(r)) throw new Error(r.left.message);
      return preparedObject(r.right.object, false);
    };
    const early = parse(true);
    expect(early).toEqual(parse(false));
    expect(early.metadata).toEqual({ name: 'a', namespace: 'n', resourceVersion: '3' });
    expect(Object.isFrozen(early) && Object.isFrozen(early.metadata) && Object.isFrozen(early.data)).toBe(true);
  });
});

describe('preparedObject', () => {
  it('strips managedFields, keeps the key order of metadata and freezes every level, arrays included', () => {
    const raw = JSON.parse(
      '{"metadata":{"name":"a","managedFields":[{"manager":"m"}],"finalizers":["f"],"ownerReferences":[{"uid":"u"}]},"spec":{"list":[{"x":[1]}]}}',
    ) as ConfigMap & { spec: { list: { x: number[] }[] } };
    const out = preparedObject(raw, false);
    expect(Object.keys(out.metadata)).toEqual(['name', 'finalizers', 'ownerReferences']);
    const spec = out.spec;
    for (const v of [out, out.metadata, out.metadata.finalizers, out.metadata.ownerReferences?.[0], spec, spec.list, spec.list[0], spec.list[0]?.x]) {
      expect(Object.isFrozen(v)).toBe(true);
    }
  });

  it('keeps managedFields when asked, and copies a frozen input rather than editing it', () => {
    const kept = preparedObject(JSON.parse('{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}') as ConfigMap, true);
    expect(kept.metadata.managedFields).toEqual([{ manager: 'm' }]);
    const frozen = Object.freeze({ metadata: Object.freeze({ name: 'b', managedFields: Object.freeze([]) }), data: { k: 'v' } });
    const out = preparedObject<ConfigMap>(frozen, false);
    expect(out).not.toBe(frozen);
    expect(frozen.metadata.managedFields).toEqual([]);
    expect(out.metadata).toEqual({ name: 'b' });
    expect(Object.isFrozen(out) && Object.isFrozen(out.data)).toBe(true);
  });
});
