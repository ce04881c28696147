// A run-time cost bound for `cel` mutations (issue 28): the CEL library bounds expressions at parse
// time only, so a consumer's long list made a nested comprehension run for minutes inside the
// agent. Each evaluation's cost is now estimated from the AST and the object's sizes before it runs;
// over the budget, that object's mutation fails with the figure and the expression never runs.
import { describe, expect, it } from 'vitest';
import { compileMutations, mutate } from '../../packages/sync-agent/src/mutation.js';
import type { MutationStep } from '../../packages/sync-agent/src/types.js';

const compiled = (steps: readonly MutationStep[]): ReturnType<typeof compileMutations> & { type: 'compiled' } => {
  const c = compileMutations(steps);
  if (c.type === 'invalid') throw new Error(c.problems.join('; '));
  return c;
};

const consumer = (spec: Record<string, unknown>): unknown => ({ apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'team' }, spec });
const items = (n: number): readonly number[] => Array.from({ length: n }, (_, i) => i);
const overBudget = /^mutation step \[0\] \(cel\): its estimated cost \d\.\de\+\d+ on this object is over the budget of 1,000,000 steps/;

describe('cel mutations: a run-time cost budget', () => {
  it('a nested exists over a 10,000-element list of the consumer object fails that object without running (1e8 steps)', () => {
    const m = compiled([{ cel: { path: 'spec.pairs', expression: 'self.spec.items.exists(a, self.spec.items.exists(b, a == b + 100000))' } }]);
    const r = mutate(m.mutations, consumer({ items: items(10_000) }), undefined);
    expect(r.type).toBe('failed');
    expect(r.type === 'failed' ? r.message : '').toMatch(overBudget);
  });

  it('a nested map over a 10,000-element list fails that object (1e8 elements built)', () => {
    const m = compiled([{ cel: { path: 'spec.grid', expression: 'self.spec.items.map(a, self.spec.items.map(b, a * b))' } }]);
    const r = mutate(m.mutations, consumer({ items: items(10_000) }), undefined);
    expect(r.type === 'failed' ? r.message : 'it ran').toMatch(overBudget);
  });

  it('a nested all over 10,000 elements reached through a loop variable fails too', () => {
    const m = compiled([{ cel: { path: 'spec.ok', expression: 'self.spec.groups.all(g, g.members.all(a, g.members.all(b, a != b || a == b)))' } }]);
    const r = mutate(m.mutations, consumer({ groups: [{ members: items(10_000) }] }), undefined);
    expect(r.type === 'failed' ? r.message : 'it ran').toMatch(overBudget);
  });

  it('a string blown up by a comprehension (100 KB times 1,000) fails that object', () => {
    const m = compiled([{ cel: { path: 'spec.copies', expression: 'self.spec.items.map(x, self.spec.blob + string(x))' } }]);
    const r = mutate(m.mutations, consumer({ items: items(1_000), blob: 'x'.repeat(100_000) }), undefined);
    expect(r.type === 'failed' ? r.message : 'it ran').toMatch(overBudget);
  });

  it('the same expressions on small objects run, and another object is unaffected by the one refused', () => {
    const nested = compiled([{ cel: { path: 'spec.pairs', expression: 'self.spec.items.map(a, self.spec.items.filter(b, b > a).size()).filter(n, n > 0).size()' } }]);
    const bad = mutate(nested.mutations, consumer({ items: items(10_000) }), undefined);
    const good = mutate(nested.mutations, consumer({ items: items(30) }), undefined);
    expect(bad.type).toBe('failed');
    expect(good).toMatchObject({ type: 'mutated', object: { spec: { pairs: 29 } } });
    const linear = compiled([{ cel: { path: 'spec.names', expression: 'self.spec.items.map(x, string(x) + "-db")' } }]);
    const out = mutate(linear.mutations, consumer({ items: items(5_000) }), undefined);
    expect(out.type === 'mutated' ? (out.object as { spec: { names: string[] } }).spec.names.slice(0, 2) : out).toEqual(['0-db', '1-db']);
  });

  it('an expression over budget on any object (nested comprehensions over literal lists) is refused at start', () => {
    const ten = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
    const expression = `${ten}.all(a, ${ten}.all(b, ${ten}.all(c, ${ten}.all(d, ${ten}.all(e, ${ten}.all(f, ${ten}.all(g, a + b + c + d + e + f + g >= 0)))))))`;
    const c = compileMutations([{ cel: { path: 'spec.x', expression } }]);
    expect(c.type === 'invalid' ? c.problems : []).toEqual([expect.stringMatching(/^\[0\]\.cel\.expression: its estimated cost \d\.\de\+\d+ on any object is over the budget of 1,000,000 steps/)]);
  });
});
