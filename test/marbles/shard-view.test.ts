// The sharding view (pure): its id is the same for the same members in any order, owners follow
// rendezvous hashing, membership Lease names and labels are always valid Kubernetes names, and
// viewConfirmed answers true only when every live member (self by its PUBLISHED ack) is on the view.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { rendezvousOwner } from '../../src/runtime/ha/rendezvous.js';
import type { PeerAck, ShardView } from '../../src/runtime/ha/shard-view.js';
import {
  acknowledgedViewAnnotation,
  memberLabelSelector,
  memberLabelValue,
  memberLeaseName,
  replicasLabel,
  shardView,
  viewConfirmed,
  weightAnnotation,
} from '../../src/runtime/ha/shard-view.js';

const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

describe('shardView', () => {
  it('should have a 16-hex id that depends on the members and weights, not their order', () => {
    const v = shardView([
      { identity: 'b', weight: 1 },
      { identity: 'a', weight: 2 },
    ]);
    expect(v.id).toMatch(/^[0-9a-f]{16}$/);
    expect(v.members.map((m) => m.identity)).toEqual(['a', 'b']);
    expect(
      shardView([
        { identity: 'a', weight: 2 },
        { identity: 'b', weight: 1 },
      ]).id,
    ).toBe(v.id);
    expect(
      shardView([
        { identity: 'a', weight: 1 },
        { identity: 'b', weight: 1 },
      ]).id,
    ).not.toBe(v.id);
    expect(shardView([{ identity: 'a', weight: 2 }]).id).not.toBe(v.id);
    // The id is sha256 of the sorted `identity:weight` lines, so another implementation can match it.
    expect(shardView([]).id).toBe('e3b0c44298fc1c14');
  });

  it('should own names as rendezvous hashing over its members does, and nothing when empty', () => {
    const members = [
      { identity: 'x', weight: 1 },
      { identity: 'y', weight: 3 },
      { identity: 'x', weight: 9 }, // duplicate identity: the first entry wins
    ];
    const v = shardView(members);
    expect(v.members).toEqual(members.slice(0, 2));
    for (const n of ['east', 'west', 'north', 'south']) expect(v.owner(n)).toBe(rendezvousOwner(members.slice(0, 2), n));
    expect(shardView([]).owner('east')).toBeUndefined();
  });

  it('should refuse invalid weights at once', () => {
    expect(() => shardView([{ identity: 'a', weight: 0 }])).toThrow(ConfigError);
  });
});

describe('membership Lease names and labels', () => {
  it('should name a Lease prefix + 10 hex of the identity, and export the keys', () => {
    const name = memberLeaseName('my-controller', 'web-7d9f-1a2b3c');
    expect(name).toMatch(/^my-controller-[0-9a-f]{10}$/);
    expect(memberLeaseName('my-controller', 'web-7d9f-1a2b3c')).toBe(name);
    expect(memberLeaseName('my-controller', 'web-7d9f-000000')).not.toBe(name);
    expect([replicasLabel, weightAnnotation, acknowledgedViewAnnotation]).toEqual(['rxfleet.io/replicas', 'rxfleet.io/weight', 'rxfleet.io/acknowledged-view']);
    expect(memberLabelSelector('my-controller')).toBe('rxfleet.io/replicas=my-controller');
  });

  it('should stay a valid DNS-1123 subdomain and label value whatever the prefix', () => {
    const prefixes = ['ctl', 'a.b', 'x'.repeat(300), 'My_Controller', '-weird-', 'a..b', '---', 'ü', 'y'.repeat(63), 'z'.repeat(64)];
    for (const p of prefixes) {
      const name = memberLeaseName(p, 'id');
      expect(name.length, p).toBeLessThanOrEqual(253);
      expect(name, p).toMatch(subdomain);
      const value = memberLabelValue(p);
      expect(value.length, p).toBeLessThanOrEqual(63);
      expect(value, p).toMatch(labelValue);
    }
    // Valid prefixes are kept as they are; distinct long prefixes stay distinct.
    expect(memberLabelValue('y'.repeat(63))).toBe('y'.repeat(63));
    expect(memberLabelValue('My_Controller')).toBe('My_Controller');
    expect(memberLeaseName('a.b', 'id').startsWith('a.b-')).toBe(true);
    expect(memberLabelValue(`${'z'.repeat(70)}1`)).not.toBe(memberLabelValue(`${'z'.repeat(70)}2`));
    expect(memberLeaseName(`${'x'.repeat(300)}1`, 'id')).not.toBe(memberLeaseName(`${'x'.repeat(300)}2`, 'id'));
  });
});

describe('viewConfirmed', () => {
  const abc = shardView(['a', 'b', 'c'].map((identity) => ({ identity, weight: 1 })));
  const acks = (v: ShardView, over: Record<string, string | undefined> = {}): PeerAck[] =>
    v.members.map((m) => ({ identity: m.identity, acknowledgedView: m.identity in over ? over[m.identity] : v.id }));
  const self = (publishedAck: string | undefined, identity = 'a') => ({ identity, publishedAck });

  it.each([
    ['all live members and self on the view', self(abc.id), acks(abc), true],
    ['self has published nothing yet', self(undefined), acks(abc), false],
    ['self published an older view', self('0000000000000000'), acks(abc), false],
    ['a peer acknowledged an older view', self(abc.id), acks(abc, { b: '0000000000000000' }), false],
    ['a peer has no acknowledgement', self(abc.id), acks(abc, { c: undefined }), false],
    ['a member of the view is no longer live', self(abc.id), acks(abc).filter((p) => p.identity !== 'c'), false],
    ['a live peer is outside the view', self(abc.id), [...acks(abc), { identity: 'd', acknowledgedView: abc.id }], false],
    ['self is not in the view', self(abc.id, 'z'), acks(abc), false],
    ["self's observed entry is ignored: only the published ack counts", self(abc.id), acks(abc, { a: undefined }), true],
    ["self's observed ack does not stand in for the published one", self(undefined), acks(abc), false],
  ])('%s → %s', (_case, me, peers, expected) => {
    expect(viewConfirmed(abc, me, peers)).toBe(expected);
  });

  it('should confirm a view of self alone once self has published it', () => {
    const solo = shardView([{ identity: 'a', weight: 1 }]);
    expect(viewConfirmed(solo, self(solo.id), [])).toBe(true);
    expect(viewConfirmed(solo, self(solo.id), [{ identity: 'a', acknowledgedView: undefined }])).toBe(true);
    expect(viewConfirmed(solo, self(abc.id), [])).toBe(false);
  });
});
