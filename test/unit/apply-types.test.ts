// Server-side apply takes "the fields I own": inline literals are checked against the resource's
// type, field by field, and partial intents are accepted.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ApplyConfiguration, ConfigMap, KubeObject } from '../../src/index.js';
import { configMaps, resource } from '../../src/index.js';
import type { ApplyWrite } from '../../src/sinks/index.js';

interface Widget extends KubeObject {
  spec: { size: number; color: string };
}
const widgets = resource<Widget>({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });

describe('apply intents', () => {
  it('accept inline literals with the resource fields, partially', () => {
    const cm: ApplyConfiguration<ConfigMap> = { metadata: { name: 'a' }, data: { k: 'v' } };
    const partial: ApplyConfiguration<Widget> = { metadata: { name: 'w' }, spec: { size: 3 } };
    const write: ApplyWrite<ConfigMap> = { cluster: 'east' as ApplyWrite['cluster'], resource: configMaps, object: { metadata: { name: 'b' }, data: { x: 'y' } } };
    expect([cm.data, partial.spec, write.object.data]).toEqual([{ k: 'v' }, { size: 3 }, { x: 'y' }]);
  });

  it('refuse fields the resource does not have and values of the wrong type', () => {
    // @ts-expect-error -- a typo: ConfigMaps have no `dat`.
    const wrongField: ApplyConfiguration<ConfigMap> = { metadata: { name: 'a' }, dat: {} };
    // @ts-expect-error -- size is a number.
    const wrongType: ApplyConfiguration<Widget> = { metadata: { name: 'w' }, spec: { size: 'big' } };
    expect([wrongField.metadata.name, wrongType.metadata.name]).toEqual(['a', 'w']);
  });

  it('are what the client and the apply sink take', () => {
    expectTypeOf<ApplyWrite<Widget>['object']>().toEqualTypeOf<ApplyConfiguration<Widget>>();
    type ClientApply = (c: ClusterClient) => Parameters<typeof c.apply<Widget>>[1];
    expectTypeOf<ReturnType<ClientApply>>().toEqualTypeOf<ApplyConfiguration<Widget>>();
    expect(widgets.kind).toBe('Widget');
  });
});
