// Weighted rendezvous hashing: the same owners in every process, minimal movement on join and
// leave (about 1/N, and only to or from the member that changed), shares that follow the weights.
import { describe, expect, it, vi } from 'vitest';
import type { RendezvousMember } from '../../src/runtime/ha/rendezvous.js';
import { rendezvousAssignments, rendezvousOwner, rendezvousUnit } from '../../src/runtime/ha/rendezvous.js';
import { ConfigError } from '../../src/core/config-error.js';

const names = Array.from({ length: 1000 }, (_, i) => `cluster-${i}`);
const member = (identity: string, weight = 1): RendezvousMember => ({ identity, weight });
const three = [member('replica-a-1f2e3d'), member('replica-b-aa0011'), member('replica-c-ff9988')];

function shares(owners: ReadonlyMap<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of owners.values()) out.set(o, (out.get(o) ?? 0) + 1);
  return out;
}

describe('rendezvousUnit', () => {
  it('should be a fixed number in (0, 1) for a given identity and name', () => {
    // Pinned: a change of hash would silently reshuffle every fleet during a rolling upgrade.
    expect(rendezvousUnit('replica-a', 'east')).toBe(rendezvousUnit('replica-a', 'east'));
    expect(rendezvousUnit('replica-a', 'east')).toMatchInlineSnapshot(`0.5829529666152802`);
    expect(rendezvousUnit('', '')).toMatchInlineSnapshot(`0.5402907043191472`);
    const us = names.map((n) => rendezvousUnit('replica-a', n));
    expect(us.every((u) => u > 0 && u < 1)).toBe(true);
    // Roughly uniform: each decile holds 10% ± 4% of 1,000 samples.
    for (let d = 0; d < 10; d++) {
      const inDecile = us.filter((u) => u >= d / 10 && u < (d + 1) / 10).length;
      expect(inDecile).toBeGreaterThan(60);
      expect(inDecile).toBeLessThan(140);
    }
  });

  it('should separate identity and name (no ambiguity from concatenation)', () => {
    expect(rendezvousUnit('ab', 'c')).not.toBe(rendezvousUnit('a', 'bc'));
  });
});

describe('rendezvousOwner', () => {
  it('should not depend on the order of members, and agree with rendezvousAssignments', () => {
    const owners = rendezvousAssignments(three, names);
    const reversed = [...three].reverse();
    for (const n of names) {
      expect(rendezvousOwner(reversed, n)).toBe(owners.get(n));
    }
    expect(owners.size).toBe(names.length);
  });

  it('should give nothing to nobody, and everything to a single member', () => {
    expect(rendezvousOwner([], 'east')).toBeUndefined();
    expect(rendezvousAssignments([], names).size).toBe(0);
    expect(new Set(rendezvousAssignments([member('solo')], names).values())).toEqual(new Set(['solo']));
  });

  it('should spread names evenly over equal members', () => {
    const counts = shares(rendezvousAssignments(three, names));
    for (const m of three) {
      expect(counts.get(m.identity)).toBeGreaterThan(280);
      expect(counts.get(m.identity)).toBeLessThan(390);
    }
  });

  it('should move about 1/4 of the names when a 4th member joins, all of them to the newcomer', () => {
    const before = rendezvousAssignments(three, names);
    const after = rendezvousAssignments([...three, member('replica-d-0c0c0c')], names);
    const moved = names.filter((n) => before.get(n) !== after.get(n));
    expect(moved.length / names.length).toBeGreaterThan(0.18);
    expect(moved.length / names.length).toBeLessThan(0.32);
    expect(new Set(moved.map((n) => after.get(n)))).toEqual(new Set(['replica-d-0c0c0c']));
  });

  it('should move only the leaving member’s names when one leaves', () => {
    const before = rendezvousAssignments(three, names);
    const after = rendezvousAssignments(three.slice(0, 2), names);
    for (const n of names) {
      if (before.get(n) === 'replica-c-ff9988') expect(after.get(n)).not.toBe('replica-c-ff9988');
      else expect(after.get(n)).toBe(before.get(n));
    }
  });

  it('should share 2:1 when weights are 2 and 1', () => {
    const counts = shares(rendezvousAssignments([member('heavy', 2), member('light', 1)], names));
    const heavy = (counts.get('heavy') ?? 0) / names.length;
    expect(heavy).toBeGreaterThan(0.61);
    expect(heavy).toBeLessThan(0.72);
    expect((counts.get('light') ?? 0) / names.length).toBeCloseTo(1 - heavy, 10);
  });

  it('should refuse a weight that is not finite and positive', () => {
    for (const w of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => rendezvousOwner([member('a', w)], 'east')).toThrow(ConfigError);
      expect(() => rendezvousAssignments([member('a', w)], ['east'])).toThrow(ConfigError);
    }
  });

  it('should stay cheap: one score per member and name, 6,000 for 2,000 names over 3 members', () => {
    // The cost is the count of scores times the pinned hash above (pure arithmetic, about 1 µs a
    // score here: see the figures in rendezvous.ts); each score takes one logarithm.
    const many = Array.from({ length: 2000 }, (_, i) => `workspace-${i}-${(i * 7919).toString(16)}`);
    const log = vi.spyOn(Math, 'log');
    try {
      const owners = rendezvousAssignments(three, many);
      expect(owners.size).toBe(2000);
      expect(log).toHaveBeenCalledTimes(3 * 2000);
    } finally {
      log.mockRestore();
    }
  });
});
