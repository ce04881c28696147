// The toolchain promises of the package: tests run on the pinned Node 24, and the public generics
// type what the client returns.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ConfigMap, Either, KubeError, KubeObject, ObjectList, ResourceDescriptor } from '../../src/index.js';
import { configMaps, resource } from '../../src/index.js';

describe('the toolchain', () => {
  it('runs the tests on Node 24 or later, whatever the system Node is', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(24);
  });
});

describe('public generics', () => {
  it('type get and list by the resource descriptor', () => {
    expectTypeOf<ClusterClient['get']>().toBeFunction();
    type Get = (c: ClusterClient) => ReturnType<typeof c.get<ConfigMap>>;
    expectTypeOf<ReturnType<Get>>().toEqualTypeOf<Promise<Either<KubeError, ConfigMap>>>();
    type List = (c: ClusterClient) => ReturnType<typeof c.list<ConfigMap>>;
    expectTypeOf<ReturnType<List>>().toEqualTypeOf<Promise<Either<KubeError, ObjectList<ConfigMap>>>>();
    expectTypeOf(configMaps).toEqualTypeOf<ResourceDescriptor<ConfigMap>>();
  });

  it('carry a user type through resource()', () => {
    interface Widget extends KubeObject {
      spec: { size: number };
    }
    const widgets = resource<Widget>({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
    expectTypeOf(widgets).toEqualTypeOf<ResourceDescriptor<Widget>>();
    expect(Object.isFrozen(widgets)).toBe(true);
  });
});
