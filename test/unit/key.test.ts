import { describe, expect, it } from 'vitest';
import { clusterName, formatKey, keyOf, objectKey, parseKey } from '../../src/index.js';
import { ConfigError } from '../../src/core/config-error.js';

describe('object keys', () => {
  it('format as cluster://<cluster>/<namespace>/<name>', () => {
    expect(formatKey(objectKey(clusterName('east'), 'default', 'settings'))).toBe('cluster://east/default/settings');
  });

  it('keep cluster-scoped objects distinct with an empty namespace', () => {
    const k = keyOf(clusterName('east'), { metadata: { name: 'team-a' } });
    expect(formatKey(k)).toBe('cluster://east//team-a');
    expect(parseKey('cluster://east//team-a')).toEqual(k);
  });

  it('round-trip cluster names that contain slashes and plus signs', () => {
    for (const name of ['capi-system/prod', '/home/me/.kube/config+kind-east', 'root:org:team a']) {
      const k = objectKey(clusterName(name), 'ns', 'obj');
      const s = formatKey(k);
      expect(s.split('/').length).toBe(5);
      expect(parseKey(s)).toEqual(k);
    }
  });

  it('never let the same namespace/name in two clusters collide', () => {
    const a = formatKey(objectKey(clusterName('a'), 'default', 'x'));
    const b = formatKey(objectKey(clusterName('b'), 'default', 'x'));
    expect(a).not.toBe(b);
  });

  it('reject strings that are not keys', () => {
    expect(parseKey('east/default/a')).toBeUndefined();
    expect(parseKey('cluster:///default/a')).toBeUndefined();
    expect(parseKey('cluster://%E0%A4%A/default/a')).toBeUndefined();
    expect(parseKey('cluster://%00/default/a')).toBeUndefined();
  });

  it('refuse empty and control-character cluster names', () => {
    expect(() => clusterName('')).toThrow(ConfigError);
    expect(() => clusterName('a\nb')).toThrow(/control characters/);
  });
});
