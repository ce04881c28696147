import { describe, expect, it } from 'vitest';
import { resourcePath, withQuery } from '../../src/client/paths.js';
import { configMaps, namespaces, resource } from '../../src/index.js';
import { ConfigError } from '../../src/core/config-error.js';

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

  it('encode a query exactly as URLSearchParams does', () => {
    const samples = [
      'app in (web, api),tier!=db',
      "a!b'c(d)e~f*g-h.i_j",
      'metadata.name=x&y=z#frag?q',
      'ünïcödé 日本 😀',
      'lone \ud800 surrogate',
      '%20+already%2Fencoded',
      '',
    ];
    // And a few thousand random strings over printable ASCII, some Latin-1 and a surrogate pair.
    const alphabet = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), 'é', 'ß', '😀'];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 3000; i++) samples.push(Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join(''));
    for (const v of samples) {
      expect(withQuery('/p', { [v]: v, n: 5 })).toBe(`/p?${new URLSearchParams([[v, v], ['n', '5']]).toString()}`);
    }
  });

  it('refuse descriptors that would build wrong URLs', () => {
    expect(() => resource({ group: '', version: 'v1', plural: 'ConfigMaps', kind: 'ConfigMap', namespaced: true })).toThrow(ConfigError);
    expect(() => resource({ group: '', version: '', plural: 'x', kind: 'X', namespaced: true })).toThrow(ConfigError);
  });
});
