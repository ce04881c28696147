// The `mutation` block, the same shape in the agent's own entries and in a PublishedResource's spec:
// `{ spec: [...], status: [...] }`, each step exactly one of delete, regex, template or cel. Checked
// field by field, then compiled (mutation.ts), so a pattern, template or expression that would
// fail per object fails at start instead, with its path.
import type { Problems } from './config-check.js';
import { at, list, mapping, text } from './config-check.js';
import { compileMutations } from './mutation.js';
import type { MutationStep } from './types.js';

const bodies: Readonly<Record<string, readonly string[]>> = {
  delete: ['path'],
  regex: ['path', 'pattern', 'replacement'],
  template: ['path', 'template'],
  cel: ['path', 'expression'],
};

const anyString = (): undefined => undefined;

function checkStep(v: unknown, path: string, p: Problems): MutationStep | undefined {
  const m = mapping(v, path, Object.keys(bodies), p);
  if (m === undefined) return undefined;
  const kinds = Object.keys(m).filter((k) => Object.hasOwn(bodies, k));
  if (kinds.length !== 1) {
    p.add(path, `give exactly one of delete, regex, template, cel${kinds.length > 1 ? `, not ${kinds.join(' and ')}` : ''}`);
    return undefined;
  }
  const kind = kinds[0] ?? '';
  const body = mapping(m[kind], at(path, kind), bodies[kind] ?? [], p);
  if (body === undefined) return undefined;
  const before = p.list.length;
  text(body, 'path', at(path, kind), p, anyString, true);
  if (kind === 'template') text(body, 'template', at(path, kind), p, anyString, true);
  if (kind === 'cel') text(body, 'expression', at(path, kind), p, anyString, true);
  if (kind === 'regex') {
    text(body, 'pattern', at(path, kind), p, anyString);
    text(body, 'replacement', at(path, kind), p, anyString);
  }
  return p.list.length === before ? ({ [kind]: body } as unknown as MutationStep) : undefined;
}

/**
 * Checks a `mutation` block and compiles its steps; every problem goes to `p` with its path
 * (`published[0].mutation.spec[1].regex.pattern: ...`).
 *
 * @example
 * ```ts
 * checkMutation({ spec: [{ delete: { path: 'spec.debug' } }] }, 'published[0].mutation', problems);
 * ```
 * @param v - the block as read.
 * @param path - its path.
 * @param p - where problems go.
 */
export function checkMutation(v: unknown, path: string, p: Problems): void {
  const m = mapping(v, path, ['spec', 'status'], p);
  if (m === undefined) return;
  for (const side of ['spec', 'status'] as const) {
    const steps = list(m, side, path, p);
    if (steps === undefined) continue;
    steps.forEach((step, i) => {
      const where = `${at(path, side)}[${i}]`;
      const checked = checkStep(step, where, p);
      const compiled = checked === undefined ? undefined : compileMutations([checked]);
      // Each problem is `[0]<.field>: <message>` for the one step compiled.
      if (compiled?.type === 'invalid') for (const problem of compiled.problems) p.add(`${where}${problem.slice(3, problem.indexOf(': '))}`, problem.slice(problem.indexOf(': ') + 2));
    });
  }
}

/**
 * Checks a related entry's `mutation`: `spec` and `status`, each as a primary's (whether `status`
 * may be given is `checkRelatedOptions`'s question: only with `syncStatus`).
 *
 * @example
 * ```ts
 * checkRelatedMutation({ spec: [{ delete: { path: 'data.debug' } }] }, 'published[0].related[0].mutation', problems);
 * ```
 * @param v - the mutation as read.
 * @param path - its path.
 * @param p - where problems go.
 */
export function checkRelatedMutation(v: unknown, path: string, p: Problems): void {
  checkMutation(v, path, p);
}
