// CEL expressions of `cel` mutations, through @marcbachmann/cel-js (zero dependencies, kept up to date,
// parse-time limits; see docs/sync.md for the choice). CEL has no I/O by design: an expression sees
// only `value`, `self` and `other`, declared as dyn; anything else is an unknown variable at start.
// Two things the library leaves open are closed here: expressions are bounded in size and depth at
// parse time, and `matches` is refused, because the library runs it on JavaScript's backtracking
// RegExp, where a consumer's value can make one pattern run for minutes (use a `regex` mutation:
// RE2, linear time). And the run time is bounded: the library has no cost limit, so each evaluation's
// cost is estimated first from the AST and the object's sizes (cel-cost.ts); one over the budget
// does not run. Kubernetes integers are int64, so whole numbers go in as CEL ints (BigInt) and
// come back as numbers.
import type { ASTNode } from '@marcbachmann/cel-js';
import { Environment } from '@marcbachmann/cel-js';
import { celCost, celCostBudget } from './cel-cost.js';

const environment = new Environment({
  homogeneousAggregateLiterals: false,
  limits: { maxAstNodes: 1000, maxDepth: 32, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 8 },
})
  .registerVariable('value', 'dyn')
  .registerVariable('self', 'dyn')
  .registerVariable('other', 'dyn');

/** Functions refused in expressions, with the reason. */
const refusedCalls: Readonly<Record<string, string>> = {
  matches: 'matches runs on a backtracking regular expression engine, which a consumer value can stall; use a regex mutation (RE2, linear time)',
};

/**
 * A checked CEL expression, ready to evaluate.
 *
 * @example
 * ```ts
 * const r = compileCel('value * 2');
 * if (r.type === 'compiled') evaluateCel(r.expression, { value: 2, self: {}, other: undefined });
 * ```
 */
export interface CelExpression {
  /** The expression as written. */
  readonly source: string;
  /** Evaluates it (opaque outside this module). */
  readonly run: (context: Readonly<Record<string, unknown>>) => unknown;
}

function refusedCall(node: ASTNode): string | undefined {
  if (node.op === 'call' || node.op === 'rcall') {
    const why = Object.hasOwn(refusedCalls, node.args[0]) ? refusedCalls[node.args[0]] : undefined;
    if (why !== undefined) return `${node.args[0]}(): ${why}`;
  }
  const children: unknown[] = Array.isArray(node.args) ? node.args.flat(2) : [node.args];
  for (const c of children) {
    if (typeof c === 'object' && c !== null && 'op' in c) {
      const found = refusedCall(c as ASTNode);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Parses and type-checks a CEL expression against `value`, `self` and `other`.
 *
 * @example
 * ```ts
 * compileCel('value +'); // { type: 'invalid', message: 'does not parse: ...' }
 * ```
 * @param source - the expression.
 * @returns the expression, or what is wrong with it.
 */
export function compileCel(source: string): { readonly type: 'compiled'; readonly expression: CelExpression } | { readonly type: 'invalid'; readonly message: string } {
  if (source.trim() === '') return { type: 'invalid', message: 'an expression must not be empty' };
  try {
    const parsed = environment.parse(source);
    const refused = refusedCall(parsed.ast);
    if (refused !== undefined) return { type: 'invalid', message: refused };
    const checked = parsed.check();
    if (!checked.valid) return { type: 'invalid', message: `does not type-check: ${firstLine(checked.error)}` };
    // Over budget whatever the object (nested comprehensions over literal lists): refused at start.
    const least = celCost(parsed.ast, { value: null, self: null, other: null });
    if (least > celCostBudget) return { type: 'invalid', message: overBudget(least, 'on any object') };
    const expression: CelExpression = Object.freeze({ source, run: (ctx: Readonly<Record<string, unknown>>) => parsed(ctx) as unknown });
    asts.set(expression, parsed.ast);
    return { type: 'compiled', expression };
  } catch (e) {
    return { type: 'invalid', message: `does not parse: ${firstLine(e)}` };
  }
}

// Each compiled expression's AST, for its cost estimate (kept out of the public CelExpression).
const asts = new WeakMap<CelExpression, ASTNode>();

function overBudget(cost: number, where: string): string {
  return `its estimated cost ${cost.toExponential(1)} ${where} is over the budget of ${celCostBudget.toLocaleString('en')} steps (a comprehension costs its list's length times its body; bound the list, e.g. with size(), or use fewer nested comprehensions)`;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

// JSON in: whole numbers become CEL ints; the rest is passed as it is (plain data, own keys only).
function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v;
}

// CEL out: JSON only. A value JSON cannot hold (bytes, a timestamp, a type) is an error, not a guess.
function fromCel(v: unknown, where: string): unknown {
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error(`${where} is ${v}, beyond what JSON numbers hold exactly`);
    return Number(v);
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map((x, i) => fromCel(x, `${where}[${i}]`));
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), fromCel(x, `${where}.${String(k)}`)]));
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromCel(x, `${where}.${k}`)]));
  const what = v instanceof Date ? 'a timestamp' : v instanceof Uint8Array ? 'bytes' : `a ${Object.prototype.toString.call(v).slice(8, -1)}`;
  throw new Error(`${where} is ${what}, which JSON cannot hold; convert it with string()`);
}

/**
 * Evaluates an expression: `value` (the field at the mutation's path, `null` when absent), `self`
 * (the object being mutated) and `other` (its counterpart on the other side, `null` when there is
 * none). The result must be JSON (a string, number, bool, null, list or map).
 *
 * @example
 * ```ts
 * evaluateCel(expr, { value: 2, self: obj, other: undefined }); // { type: 'value', value: 4 }
 * ```
 * @param expression - a compiled expression.
 * @param vars - the three variables.
 * @param vars.value - the field's value.
 * @param vars.self - the object being mutated.
 * @param vars.other - the counterpart, if any.
 * @returns the result, or why there is none.
 */
export function evaluateCel(expression: CelExpression, vars: { readonly value: unknown; readonly self: unknown; readonly other: unknown }): { readonly type: 'value'; readonly value: unknown } | { readonly type: 'failed'; readonly message: string } {
  const ast = asts.get(expression);
  if (ast === undefined) return { type: 'failed', message: 'not an expression compileCel made (its cost cannot be bounded)' };
  const cost = celCost(ast, { value: vars.value ?? null, self: vars.self, other: vars.other ?? null });
  if (cost > celCostBudget) return { type: 'failed', message: overBudget(cost, 'on this object') };
  try {
    const out = expression.run({ value: toCel(vars.value ?? null), self: toCel(vars.self), other: toCel(vars.other ?? null) });
    return { type: 'value', value: fromCel(out, 'the result') };
  } catch (e) {
    return { type: 'failed', message: firstLine(e) };
  }
}
