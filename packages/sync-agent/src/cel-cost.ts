// The run-time cost bound of a CEL expression on one object, computed BEFORE it runs. The CEL
// library (@marcbachmann/cel-js 8) has parse-time limits only: no cost tracking, no step limit, no
// way to interrupt an evaluation. So, as Kubernetes does for CEL in CRDs, the cost is estimated from
// the public AST (`ParseResult.ast`), with the sizes of the object actually being mutated: a
// comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) costs its list's length times its
// body, `+` costs what it copies, a comparison or a function what it reads. The estimate is an upper
// bound, so an expression under budget cannot run long, and one over it never runs: its object's
// sync fails with the figure, and the other objects are not slowed at all.
import type { ASTNode } from '@marcbachmann/cel-js';

/** Steps one expression may take on one object (Kubernetes' per-expression CEL limit is the same order). */
export const celCostBudget = 1_000_000;

// An upper bound of a value: how many elements (a string's characters, a map's keys) it has, its
// whole size (every element, character and key, nested), and the largest size of one element.
// `at` is the value itself while it is known (a field of the input read by literal names).
interface Bound {
  readonly count: number;
  readonly size: number;
  readonly elem: number;
  readonly at?: { readonly value: unknown };
}

const unit: Bound = { count: 1, size: 1, elem: 1 };
const upTo = (n: number): Bound => ({ count: n, size: n, elem: n });
const isMap = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

// The exact bound of a known value, each object measured once per estimate.
function measure(v: unknown, seen: WeakMap<object, Bound>): Bound {
  if (typeof v === 'string') return { count: v.length, size: v.length + 1, elem: 1, at: { value: v } };
  if (typeof v !== 'object' || v === null) return { ...unit, at: { value: v } };
  const known = seen.get(v);
  if (known !== undefined) return known;
  let size = 1;
  let elem = 0;
  const entries: readonly (readonly [string, unknown])[] = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v);
  for (const [k, x] of entries) {
    const b = measure(x, seen);
    size += k.length + b.size;
    elem = Math.max(elem, k.length + 1, b.size);
  }
  const out: Bound = { count: entries.length, size, elem, at: { value: v } };
  seen.set(v, out);
  return out;
}

const max = (a: Bound, b: Bound): Bound => ({ count: Math.max(a.count, b.count), size: Math.max(a.size, b.size), elem: Math.max(a.elem, b.elem) });

// A field or element of `o`: exact when `o` is known and the key literal, else at most an element of `o`.
function child(o: Bound, key: unknown, seen: WeakMap<object, Bound>): Bound {
  const v = o.at?.value;
  if (key !== undefined && Array.isArray(v) && typeof key === 'bigint') return measure(v[Number(key)], seen);
  if (key !== undefined && isMap(v) && typeof key === 'string') return measure(Object.hasOwn(v, key) ? v[key] : undefined, seen);
  return upTo(o.at === undefined ? o.size : o.elem);
}

const comprehensions = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

interface Estimate {
  readonly cost: number;
  readonly bound: Bound;
}

function estimate(node: ASTNode, scope: ReadonlyMap<string, Bound>, seen: WeakMap<object, Bound>): Estimate {
  const sum = (nodes: readonly ASTNode[]): { cost: number; bounds: Bound[] } => {
    const es = nodes.map((n) => estimate(n, scope, seen));
    return { cost: es.reduce((c, e) => c + e.cost, 0), bounds: es.map((e) => e.bound) };
  };
  switch (node.op) {
    case 'value': {
      const v = node.args;
      return { cost: 1, bound: typeof v === 'string' ? { count: v.length, size: v.length + 1, elem: 1 } : v instanceof Uint8Array ? upTo(v.length) : unit };
    }
    case 'id':
      return { cost: 1, bound: scope.get(node.args) ?? unit };
    case '.':
    case '.?': {
      const o = estimate(node.args[0], scope, seen);
      return { cost: o.cost + 1, bound: child(o.bound, node.args[1], seen) };
    }
    case '[]':
    case '[?]': {
      const [o, i] = [estimate(node.args[0], scope, seen), estimate(node.args[1], scope, seen)];
      const key = node.args[1].op === 'value' ? node.args[1].args : undefined;
      return { cost: o.cost + i.cost + 1, bound: child(o.bound, key, seen) };
    }
    case 'list': {
      const { cost, bounds } = sum(node.args);
      return { cost: cost + bounds.length + 1, bound: { count: bounds.length, size: bounds.reduce((s, b) => s + b.size, 1), elem: Math.max(0, ...bounds.map((b) => b.size)) } };
    }
    case 'map': {
      const { cost, bounds } = sum(node.args.flat());
      return { cost: cost + bounds.length + 1, bound: { count: node.args.length, size: bounds.reduce((s, b) => s + b.size, 1), elem: Math.max(0, ...bounds.map((b) => b.size)) } };
    }
    case '?:': {
      const { cost, bounds } = sum(node.args);
      return { cost: cost + 1, bound: max(bounds[1] ?? unit, bounds[2] ?? unit) };
    }
    case '!_':
    case '-_':
      return { cost: estimate(node.args, scope, seen).cost + 1, bound: unit };
    case 'call':
      return call(node.args[0], node.args[1], scope, seen);
    case 'rcall':
      return receiverCall(node.args[0], node.args[1], node.args[2], scope, seen);
    default: {
      const { cost, bounds } = sum(node.args);
      const [a = unit, b = unit] = bounds;
      if (node.op === '+') return { cost: cost + a.size + b.size, bound: { count: a.count + b.count, size: a.size + b.size, elem: Math.max(a.elem, b.elem) } };
      if (node.op === 'in') return { cost: cost + b.size + b.count * a.size, bound: unit };
      if (['==', '!=', '<', '<=', '>', '>='].includes(node.op)) return { cost: cost + a.size + b.size, bound: unit };
      return { cost: cost + 1, bound: unit }; // arithmetic, && and ||
    }
  }
}

// A global function: it reads its arguments once; what it returns is at most as large as they are
// (string() of a number: up to 32 characters). has() reads a path only.
function call(name: string, args: readonly ASTNode[], scope: ReadonlyMap<string, Bound>, seen: WeakMap<object, Bound>): Estimate {
  const es = args.map((a) => estimate(a, scope, seen));
  const cost = es.reduce((c, e) => c + e.cost, 0);
  if (name === 'has') return { cost: cost + 1, bound: unit };
  const read = es.reduce((s, e) => s + e.bound.size, 0);
  if (name === 'dyn' && es[0] !== undefined) return { cost: cost + 1, bound: es[0].bound };
  return { cost: cost + read + 1, bound: upTo(Math.max(32, read)) };
}

function receiverCall(name: string, receiver: ASTNode, args: readonly ASTNode[], scope: ReadonlyMap<string, Bound>, seen: WeakMap<object, Bound>): Estimate {
  const variable = args[0]?.op === 'id' ? args[0].args : undefined;
  const [, initNode, bodyNode] = args;
  if (receiver.op === 'id' && receiver.args === 'cel' && name === 'bind' && variable !== undefined && initNode !== undefined && bodyNode !== undefined) {
    const init = estimate(initNode, scope, seen);
    const body = estimate(bodyNode, new Map(scope).set(variable, init.bound), seen);
    return { cost: init.cost + body.cost + 1, bound: body.bound };
  }
  const range = estimate(receiver, scope, seen);
  if (comprehensions.has(name) && variable !== undefined && (args.length === 2 || args.length === 3)) {
    const inner = new Map(scope).set(variable, upTo(range.bound.elem));
    const bodies = args.slice(1).map((a) => estimate(a, inner, seen));
    const perElement = bodies.reduce((c, e) => c + e.cost, 1);
    const cost = range.cost + range.bound.count * perElement;
    const last = bodies[bodies.length - 1]?.bound ?? unit;
    if (name === 'map') return { cost: cost + range.bound.count * last.size, bound: { count: range.bound.count, size: 1 + range.bound.count * (last.size + 1), elem: last.size } };
    if (name === 'filter') return { cost, bound: { count: range.bound.count, size: range.bound.size, elem: range.bound.elem } };
    return { cost, bound: unit };
  }
  return call(name, [receiver, ...args], scope, seen);
}

/**
 * The estimated cost of evaluating `ast` with these variables (an upper bound, in steps), including
 * writing its result out as JSON.
 *
 * @example
 * ```ts
 * celCost(parsed.ast, { value: 2, self: obj, other: null }); // 5
 * ```
 * @param ast - the parsed expression (`Environment.parse(source).ast`).
 * @param vars - each variable's value (JSON).
 * @returns the estimate; compare it with {@link celCostBudget}.
 */
export function celCost(ast: ASTNode, vars: Readonly<Record<string, unknown>>): number {
  const seen = new WeakMap<object, Bound>();
  const scope = new Map(Object.entries(vars).map(([k, v]) => [k, measure(v, seen)] as const));
  const e = estimate(ast, scope, seen);
  return e.cost + e.bound.size;
}
