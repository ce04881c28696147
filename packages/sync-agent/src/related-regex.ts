// A related reference's `regex` (api-syncagent's `reference.regex`): an RE2 rewrite of the value read
// at the path, run by the primary's mutation engine (one regex implementation), compiled once.
import type { CompiledMutations } from './mutation.js';
import { compileMutations, mutate } from './mutation.js';

/**
 * A reference's rewrite as configured: `pattern` (RE2; empty or absent: the whole value is
 * replaced) and `replacement` (`$1` for a group).
 *
 * @example
 * ```ts
 * const r: ReferenceRegex = { pattern: '^secret://(.*)$', replacement: '$1' };
 * ```
 */
export interface ReferenceRegex {
  /** The pattern (RE2). */
  readonly pattern?: string;
  /** The replacement. */
  readonly replacement?: string;
}

const compiled = new WeakMap<ReferenceRegex, CompiledMutations | string>();

function compiledOf(r: ReferenceRegex): CompiledMutations | string {
  let c = compiled.get(r);
  if (c === undefined) {
    const m = compileMutations([{ regex: { path: 'value', ...r } }]);
    c = m.type === 'compiled' ? m.mutations : m.problems.map((p) => p.replace(/^\[0\]\.regex\.?/, '')).join('; ');
    compiled.set(r, c);
  }
  return c;
}

/**
 * What is wrong with a reference's regex, or `undefined`.
 *
 * @example
 * ```ts
 * referenceRegexProblem({ pattern: '(' }); // 'pattern: is not an RE2 (Go) regular expression: ...'
 * ```
 * @param r - the regex as configured.
 * @returns the problem in words.
 */
export function referenceRegexProblem(r: ReferenceRegex): string | undefined {
  const c = compiledOf(r);
  return typeof c === 'string' ? c : undefined;
}

/**
 * A value rewritten by a reference's regex (every match replaced), or the problem.
 *
 * @example
 * ```ts
 * rewriteReference({ pattern: '^secret://(.*)$', replacement: '$1' }, 'secret://orders-conn'); // { type: 'value', value: 'orders-conn' }
 * ```
 * @param r - the regex as configured.
 * @param value - the value read at the path.
 * @returns the rewritten value.
 */
export function rewriteReference(r: ReferenceRegex, value: string): { readonly type: 'value'; readonly value: string } | { readonly type: 'invalid'; readonly message: string } {
  const c = compiledOf(r);
  if (typeof c === 'string') return { type: 'invalid', message: `reference regex: ${c}` };
  const out = mutate(c, { value }, undefined);
  return out.type === 'failed' ? { type: 'invalid', message: `reference regex: ${out.message}` } : { type: 'value', value: out.object.value };
}
