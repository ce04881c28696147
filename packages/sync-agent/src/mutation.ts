// api-syncagent's mutations: rewrite rules applied, in order, to the consumer object before its copy
// goes down (`spec`) and to the service copy before its status goes up (`status`). Each step is
// compiled once (a bad path, pattern, template or expression is a config error at start) and run per
// object. None can reach outside the object: regular expressions are RE2 (re2js: linear time, no
// backreferences, so a consumer's value cannot stall the agent), templates are the agent's own
// subset (fields and hashes only), CEL has no I/O and is bounded at parse time (cel.ts).
import { RE2JS } from 're2js';
import type { CelExpression } from './cel.js';
import { compileCel, evaluateCel } from './cel.js';
import { deleteAt, mutationPath, readAt, writeAt } from './mutation-path.js';
import type { SyncTemplate } from './template.js';
import { mutationRoots, parseTemplate, renderTemplate } from './template.js';
import type { MutationStep } from './types.js';

type Step =
  | { readonly type: 'delete'; readonly segments: readonly string[] }
  | { readonly type: 'regex'; readonly segments: readonly string[]; readonly pattern: RE2JS | undefined; readonly replacement: string }
  | { readonly type: 'template'; readonly segments: readonly string[]; readonly template: SyncTemplate }
  | { readonly type: 'cel'; readonly segments: readonly string[]; readonly expression: CelExpression };

/**
 * A compiled list of mutation steps (opaque outside this module): made by
 * {@link compileMutations}, run by {@link mutate}.
 *
 * @example
 * ```ts
 * const r = compileMutations([{ delete: { path: 'spec.debug' } }]);
 * ```
 */
export interface CompiledMutations {
  /** The steps, in order. */
  readonly steps: readonly unknown[];
}

const kinds = ['delete', 'regex', 'template', 'cel'] as const;

function stepOf(m: MutationStep): { step: Step } | { field: string; message: string } {
  const chosen = kinds.filter((k) => Object.hasOwn(m, k));
  if (chosen.length !== 1) return { field: '', message: `give exactly one of ${kinds.join(', ')}${chosen.length > 1 ? `, not ${chosen.join(' and ')}` : ''}` };
  const kind = chosen[0] ?? 'delete';
  const body = (m as Readonly<Record<string, { readonly path: string }>>)[kind] ?? { path: '' };
  const path = mutationPath(body.path);
  if (path.type === 'invalid') return { field: `${kind}.path`, message: path.message };
  const { segments } = path;
  if ('delete' in m) return { step: { type: 'delete', segments } };
  if ('regex' in m) {
    const { pattern, replacement = '' } = m.regex;
    if (pattern === undefined || pattern === '') return { step: { type: 'regex', segments, pattern: undefined, replacement } };
    try {
      return { step: { type: 'regex', segments, pattern: RE2JS.compile(pattern), replacement } };
    } catch (e) {
      return { field: 'regex.pattern', message: `is not an RE2 (Go) regular expression: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  if ('template' in m) {
    const t = parseTemplate(m.template.template, mutationRoots);
    return t.type === 'invalid' ? { field: 'template.template', message: t.message } : { step: { type: 'template', segments, template: t.template } };
  }
  const c = compileCel(m.cel.expression);
  return c.type === 'invalid' ? { field: 'cel.expression', message: c.message } : { step: { type: 'cel', segments, expression: c.expression } };
}

/**
 * Compiles mutation steps; every problem is reported with the step's index and field
 * (`[1].regex.pattern: ...`), relative to the list.
 *
 * @example
 * ```ts
 * const r = compileMutations([{ cel: { path: 'spec.size', expression: 'value * 2' } }]);
 * if (r.type === 'invalid') console.log(r.problems);
 * ```
 * @param mutations - the steps as configured.
 * @returns the compiled steps, or every problem.
 */
export function compileMutations(mutations: readonly MutationStep[]): { readonly type: 'compiled'; readonly mutations: CompiledMutations } | { readonly type: 'invalid'; readonly problems: readonly string[] } {
  const steps: Step[] = [];
  const problems: string[] = [];
  mutations.forEach((m, i) => {
    const r = stepOf(m);
    if ('step' in r) steps.push(r.step);
    else problems.push(`[${i}]${r.field === '' ? '' : `.${r.field}`}: ${r.message}`);
  });
  return problems.length > 0 ? { type: 'invalid', problems } : { type: 'compiled', mutations: Object.freeze({ steps: Object.freeze(steps) }) };
}

// A value as Go's gjson `String()` gives it to a regex: strings as they are, other scalars as JSON.
function asString(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function run(step: Step, self: unknown, other: unknown): { readonly type: 'value'; readonly value: unknown } | { readonly type: 'failed'; readonly message: string } {
  if (step.type === 'delete') return { type: 'value', value: deleteAt(self, step.segments) };
  const current = readAt(self, step.segments);
  let next: unknown;
  if (step.type === 'regex') {
    next = step.pattern === undefined ? step.replacement : step.pattern.matcher(asString(current)).replaceAll(step.replacement);
  } else if (step.type === 'template') {
    const r = renderTemplate(step.template, { roots: { Value: current, LocalObject: self, RemoteObject: other }, missingAsEmpty: true });
    if (r.type === 'invalid') return { type: 'failed', message: r.message };
    if (r.type === 'missing') return { type: 'failed', message: `${r.field} is not set` };
    next = r.value;
  } else {
    const r = evaluateCel(step.expression, { value: current, self, other });
    if (r.type === 'failed') return r;
    next = r.value;
  }
  const written = writeAt(self, step.segments, next);
  return written === undefined ? { type: 'failed', message: 'a list index on the path is out of range' } : { type: 'value', value: written };
}

/**
 * Runs compiled steps on an object, in order, each on the result of the one before. `other` is the
 * counterpart on the other side (`undefined` on the first sync, as upstream).
 *
 * @example
 * ```ts
 * const r = mutate(compiled, consumerObject, serviceCopy);
 * if (r.type === 'mutated') console.log(r.object);
 * ```
 * @param mutations - compiled steps (none: the object as it is).
 * @param self - the object to mutate (not changed: a copy is returned).
 * @param other - its counterpart, if any.
 * @returns the mutated copy, or which step failed and why.
 */
export function mutate<T>(mutations: CompiledMutations | undefined, self: T, other: unknown): { readonly type: 'mutated'; readonly object: T } | { readonly type: 'failed'; readonly message: string } {
  let at: unknown = self;
  for (const [i, step] of ((mutations?.steps ?? []) as readonly Step[]).entries()) {
    const r = run(step, at, other);
    if (r.type === 'failed') return { type: 'failed', message: `mutation step [${i}] (${step.type}): ${r.message}` };
    at = r.value;
  }
  return { type: 'mutated', object: at as T };
}
