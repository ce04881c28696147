// sameJsonContent must agree with comparing canonical JSON texts (what it replaced in a write's
// `changed`, the apply proof and the HA state's dedupe) on every value, JSON's odd cases included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { sameJsonContent } from '../../src/core/json-equal.js';

const byText = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

// Small alphabets, so that generated pairs are often equal or nearly so.
const scalar = fc.oneof(fc.constantFrom(0, 1, -0, 2.5, NaN, Infinity, '', 'a', 'b', true, false, null, undefined));
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('v'), { maxKeys: 3 })),
})).v;

describe('sameJsonContent', () => {
  it('agrees with canonical JSON on generated pairs', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sameJsonContent(a, b)).toBe(byText(a, b));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees on a value and a reordered copy of it', () => {
    const reorder = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(reorder) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reorder(x)])) : v;
    fc.assert(
      fc.property(value, (a) => {
        expect(sameJsonContent(a, reorder(a))).toBe(true);
      }),
    );
  });

  it('treats what JSON leaves out or writes as null as JSON does', () => {
    expect(sameJsonContent({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJsonContent([undefined], [null])).toBe(true);
    expect(sameJsonContent({ a: NaN }, { a: null })).toBe(true);
    expect(sameJsonContent({ a: null }, {})).toBe(false);
    expect(sameJsonContent(new Date(0), '1970-01-01T00:00:00.000Z')).toBe(true);
    expect(sameJsonContent({ a: '1' }, { a: 1 })).toBe(false);
  });

  it('leaves out the named top-level keys only', () => {
    expect(sameJsonContent({ a: 1, skip: 1 }, { a: 1, skip: 2 }, new Set(['skip']))).toBe(true);
    expect(sameJsonContent({ a: 1, skip: 1 }, { a: 2, skip: 1 }, new Set(['skip']))).toBe(false);
    expect(sameJsonContent({ a: { skip: 1 } }, { a: { skip: 2 } }, new Set(['skip']))).toBe(false);
  });
});
