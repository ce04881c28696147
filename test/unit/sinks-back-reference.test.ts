// Back-references: valid label values, stable hashes, and refusal to trust a reference whose label
// and annotations disagree.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { readBackReference, sourceHash, sourceIdentity, sourceLabel, sourceSelector, sourceUidAnnotation, withBackReference } from '../../src/sinks/index.js';
import { ConfigError } from '../../src/core/config-error.js';

const src = sourceIdentity(clusterName('root:hub'), configMaps, { metadata: { name: 'app', namespace: 'default', uid: 'u-1' } });

describe('back-references', () => {
  it('should put a short hash in a valid label value and the full identity in annotations', () => {
    const target = withBackReference<KubeObject>({ metadata: { name: 't', namespace: 'default', labels: { keep: 'me' } } }, src);
    const label = target.metadata.labels?.[sourceLabel] ?? '';
    expect(label).toMatch(/^[a-f0-9]{20}$/);
    expect(target.metadata.labels?.keep).toBe('me');
    expect(readBackReference(target)).toEqual(src);
    expect(sourceSelector(src)).toBe(`${sourceLabel}=${label}`);
  });

  it('should give the same source the same hash and another incarnation (uid) another one', () => {
    const again = sourceIdentity(clusterName('root:hub'), configMaps, { metadata: { name: 'app', namespace: 'default', uid: 'u-1' } });
    const reborn = sourceIdentity(clusterName('root:hub'), configMaps, { metadata: { name: 'app', namespace: 'default', uid: 'u-2' } });
    const elsewhere = sourceIdentity(clusterName('root:other'), configMaps, { metadata: { name: 'app', namespace: 'default', uid: 'u-1' } });
    expect(sourceHash(again)).toBe(sourceHash(src));
    expect(sourceHash(reborn)).not.toBe(sourceHash(src));
    expect(sourceHash(elsewhere)).not.toBe(sourceHash(src));
  });

  it('should not trust a reference whose annotations were edited away from its label', () => {
    const target = withBackReference<KubeObject>({ metadata: { name: 't', namespace: 'default' } }, src);
    const edited = { metadata: { ...target.metadata, annotations: { ...target.metadata.annotations, [sourceUidAnnotation]: 'u-9' } } };
    expect(readBackReference(edited)).toBeUndefined();
    expect(readBackReference({ metadata: { name: 'plain' } })).toBeUndefined();
  });

  it('should refuse a source that was never stored', () => {
    expect(() => sourceIdentity(clusterName('a'), configMaps, { metadata: { name: 'x' } })).toThrow(ConfigError);
  });
});
