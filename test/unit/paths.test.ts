import { describe, expect, it } from 'vitest';
import { resourcePath, withQuery } from '../../src/client/paths.js';
import { configMaps, namespaces, resource } from '../../src/index.js';

const widgets = resource({ group: 'example.com', version: 'v1alpha1', plural: 'widgets', kind: 'Widget', namespaced: true });

describe('resource paths', () => {
  it('build core, group, namespaced and cluster-scoped paths', () => {
    expect(resourcePath(configMaps, { namespace: 'default' })).toBe('/api/v1/namespaces/default/configmaps');
    expect(resourcePath(configMaps, {})).toBe('/api/v1/configmaps');
    expect(resourcePath(namespaces, { namespace: 'ignored', name: 'a' })).toBe('/api/v1/namespaces/a');
    expect(resourcePath(widgets, { namespace: 'ns', name: 'w', subresource: 'status' })).toBe('/apis/example.com/v1alpha1/namespaces/ns/widgets/w/status');
  });

  it('encode names so they cannot escape their segment', () => {
    expect(resourcePath(configMaps, { namespace: 'a/b', name: '../x' })).toBe('/api/v1/namespaces/a%2Fb/configmaps/..%2Fx');
  });

  it('leave out undefined query values', () => {
    expect(withQuery('/p', { a: 1, b: undefined, c: 'x y' })).toBe('/p?a=1&c=x+y');
    expect(withQuery('/p', {})).toBe('/p');
  });

  it('refuse descriptors that would build wrong URLs', () => {
    expect(() => resource({ group: '', version: 'v1', plural: 'ConfigMaps', kind: 'ConfigMap', namespaced: true })).toThrow(TypeError);
    expect(() => resource({ group: '', version: '', plural: 'x', kind: 'X', namespaced: true })).toThrow(TypeError);
  });
});
