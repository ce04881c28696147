// api-syncagent's mutations (issue 28 item 4): delete, regex, template and cel, applied in order to a
// copy of the object, with api-syncagent's variables. Then the attacks: a configuration (from a
// Secret or a file) and a consumer's values try to run code, read files or the environment, pollute
// prototypes, or stall the agent; each is refused at start or stays inside the object.
import { describe, expect, it } from 'vitest';
import { compileMutations, mutate } from '../../packages/sync-agent/src/mutation.js';
import type { MutationStep } from '../../packages/sync-agent/src/types.js';

const run = (steps: readonly MutationStep[], self: unknown, other?: unknown): unknown => {
  const compiled = compileMutations(steps);
  if (compiled.type === 'invalid') throw new Error(compiled.problems.join('; '));
  const r = mutate(compiled.mutations, self, other);
  if (r.type === 'failed') throw new Error(r.message);
  return r.object;
};

const problems = (steps: readonly MutationStep[]): readonly string[] => {
  const compiled = compileMutations(steps);
  return compiled.type === 'invalid' ? compiled.problems : [];
};

const db = { apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'team', annotations: { 'example.com/tier': 'gold' } }, spec: { image: 'docker.io/postgres:16', size: 2, debug: true, ports: [{ name: 'pg' }] } };

describe('mutations', () => {
  it('run in order on a copy: delete, regex (RE2, $1), template (.Value, .LocalObject, .RemoteObject), cel (value, self, other)', () => {
    const out = run(
      [
        { delete: { path: 'spec.debug' } },
        { regex: { path: 'spec.image', pattern: '^docker\\.io/(.*)$', replacement: 'mirror.example.dev/$1' } },
        { template: { path: 'spec.owner', template: '{{ .LocalObject.metadata.namespace }}-{{ .Value }}{{ .RemoteObject.metadata.name }}' } },
        { cel: { path: 'spec.size', expression: 'value * 2 + size(self.spec.ports)' } },
        { cel: { path: 'spec.note', expression: 'other == null ? "first" : other.metadata.name' } },
        { regex: { path: 'metadata.annotations.example\\.com/tier', replacement: 'silver' } },
        { cel: { path: 'spec.ports.1', expression: '{"name": "metrics", "port": 9187}' } },
      ],
      db,
      { metadata: { name: 'abc123' } },
    );
    expect(out).toEqual({
      ...db,
      metadata: { ...db.metadata, annotations: { 'example.com/tier': 'silver' } },
      spec: { image: 'mirror.example.dev/postgres:16', size: 5, ports: [{ name: 'pg' }, { name: 'metrics', port: 9187 }], owner: 'team-abc123', note: 'abc123' },
    });
    expect(db.spec.debug).toBe(true); // the input is not changed
    expect(run([{ cel: { path: 'spec.note', expression: 'other == null ? "first" : "later"' } }], db)).toMatchObject({ spec: { note: 'first' } });
  });

  it('a step that cannot run fails the object with the step and the cause, not the agent', () => {
    const compiled = compileMutations([{ delete: { path: 'spec.debug' } }, { cel: { path: 'spec.size', expression: 'value + self.spec.missing' } }]);
    if (compiled.type === 'invalid') throw new Error('expected it to compile');
    expect(mutate(compiled.mutations, db, undefined)).toEqual({ type: 'failed', message: 'mutation step [1] (cel): No such key: missing' });
    const stamp = compileMutations([{ cel: { path: 'spec.at', expression: 'timestamp("2026-01-01T00:00:00Z")' } }]);
    if (stamp.type === 'invalid') throw new Error('expected it to compile');
    expect(mutate(stamp.mutations, db, undefined)).toEqual({ type: 'failed', message: 'mutation step [0] (cel): the result is a timestamp, which JSON cannot hold; convert it with string()' });
  });
});

describe('mutations, as an attacker', () => {
  it('CEL reaches no process, module, global, constructor or prototype: unknown at start, or no such key', () => {
    for (const expression of ['process.env.HOME', 'require("fs")', 'globalThis', 'import("fs")', 'this']) {
      expect(problems([{ cel: { path: 'spec.x', expression } }])).toHaveLength(1);
    }
    for (const expression of ['self.constructor', 'self["__proto__"]', 'value.constructor', 'self.spec.constructor.constructor', 'self["constructor"]["constructor"]("return process")()']) {
      const compiled = compileMutations([{ cel: { path: 'spec.x', expression } }]);
      if (compiled.type === 'invalid') continue; // refused at start: as good
      const r = mutate(compiled.mutations, db, undefined);
      expect(r.type, expression).toBe('failed');
    }
  });

  it('templates have fields and hashes only: no function that reads files, the environment or runs anything', () => {
    for (const template of ['{{ env "HOME" }}', '{{ readFile "/etc/passwd" }}', '{{ exec "id" }}', '{{ call .Value }}', '{{ template "x" }}', '{{ .Env }}', '{{ printf "%s" .Value }}']) {
      expect(problems([{ template: { path: 'spec.x', template } }]), template).toHaveLength(1);
    }
    // A field name compiles, but only own fields are read: `constructor` is not there, so it renders empty.
    expect(run([{ template: { path: 'spec.x', template: '{{ .LocalObject.constructor }}{{ .RemoteObject.__proto__ }}' } }], db)).toMatchObject({ spec: { x: '' } });
  });

  it('paths write own keys of copies: "__proto__" and "constructor" pollute no prototype', () => {
    const out = run([{ cel: { path: '__proto__.polluted', expression: '"yes"' } }, { template: { path: 'spec.constructor.prototype.polluted', template: 'yes' } }, { regex: { path: 'metadata.__proto__', replacement: 'x' } }], db) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(out))).toMatchObject({ spec: { constructor: { prototype: { polluted: 'yes' } } } });
  });

  it('a consumer value cannot stall a regex: RE2 runs (a+)+$ over 100 000 characters; CEL refuses matches() (backtracking) at start', () => {
    const long = `${'a'.repeat(100_000)}!`;
    expect(run([{ regex: { path: 'spec.name', pattern: '(a+)+$', replacement: 'x' } }], { spec: { name: long } })).toEqual({ spec: { name: long } });
    expect(problems([{ cel: { path: 'spec.ok', expression: 'value.matches("^(a+)+$")' } }])).toEqual([
      '[0].cel.expression: matches(): matches runs on a backtracking regular expression engine, which a consumer value can stall; use a regex mutation (RE2, linear time)',
    ]);
    expect(problems([{ regex: { path: 'spec.x', pattern: '(a)\\1' } }])[0]).toMatch(/^\[0\]\.regex\.pattern: is not an RE2 \(Go\) regular expression/);
  });

  it('CEL expressions are bounded at start: size and nesting', () => {
    const deep = `${'('.repeat(40)}value${')'.repeat(40)}`;
    expect(problems([{ cel: { path: 'spec.x', expression: deep } }])[0]).toMatch(/^\[0\]\.cel\.expression: does not parse: .*(depth|Depth)/);
    const wide = Array.from({ length: 600 }, () => 'value').join(' + ');
    expect(problems([{ cel: { path: 'spec.x', expression: wide } }])[0]).toMatch(/^\[0\]\.cel\.expression: does not parse: .*(AST|nodes)/i);
  });
});
