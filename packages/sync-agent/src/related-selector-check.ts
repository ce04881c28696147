// A related selector as written, checked the same way in both forms (the agent's own `object.selector`
// and a PublishedResource's, whose label selector is inline): `matchLabels` (templates),
// `matchExpressions` (as a metav1.LabelSelector's: the filter's check), the `rewrite` (template or
// regex). Templates and patterns compile in preflight (compileSelector), which names the same paths.
import type { Json, Problems } from './config-check.js';
import { at, describe, mapping } from './config-check.js';
import { selectorString } from './published-resource-fields.js';

/**
 * The selector in the agent's form, or `undefined` when it is not usable (each problem in `p`).
 *
 * @example
 * ```ts
 * checkSelector({ matchLabels: { app: 'db' }, rewrite: { template: { template: '{{ .Value }}' } } }, 'spec.related[0].object.selector', problems, 'PublishedResource');
 * // { matchLabels: { app: 'db' }, rewrite: { template: '{{ .Value }}' } }
 * ```
 * @param v - the selector as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param form - `PublishedResource` (rewrite.template is `{ template: ... }`) or `agent` (a string).
 * @returns the selector.
 */
export function checkSelector(v: unknown, path: string, p: Problems, form: 'agent' | 'PublishedResource'): Json | undefined {
  const m = mapping(v, path, ['matchLabels', 'matchExpressions', 'rewrite'], p);
  if (m === undefined) return undefined;
  const before = p.list.length;
  const labels = m.matchLabels === undefined ? undefined : mapping(m.matchLabels, at(path, 'matchLabels'), Object.keys(m.matchLabels as object), p);
  for (const [k, val] of Object.entries(labels ?? {})) if (typeof val !== 'string') p.add(at(at(path, 'matchLabels'), k), `expected a string, got ${describe(val)}`);
  const expressions = m.matchExpressions === undefined ? undefined : selectorString({ matchExpressions: m.matchExpressions }, path, p);
  if (Object.keys(labels ?? {}).length === 0 && (expressions ?? '') === '' && p.list.length === before) p.add(at(path, 'matchLabels'), 'required, or matchExpressions (an empty selector matches every object)');
  const rw = m.rewrite === undefined ? undefined : mapping(m.rewrite, at(path, 'rewrite'), ['template', 'regex'], p);
  if (m.rewrite === undefined) p.add(at(path, 'rewrite'), 'required: how a found object is named in the workspace (template or regex)');
  let rewrite: Json | undefined;
  if (rw !== undefined) {
    if ((rw.template === undefined) === (rw.regex === undefined)) p.add(at(path, 'rewrite'), 'give exactly one of template or regex');
    const tpl = form === 'agent' ? rw.template : rw.template === undefined ? undefined : mapping(rw.template, at(at(path, 'rewrite'), 'template'), ['template'], p)?.template;
    if (rw.template !== undefined && typeof tpl !== 'string') p.add(at(at(path, 'rewrite'), 'template'), `expected a template string, got ${describe(tpl)}`);
    const re = rw.regex === undefined ? undefined : checkRegex(rw.regex, at(at(path, 'rewrite'), 'regex'), p, true);
    rewrite = typeof tpl === 'string' ? { template: tpl } : re !== undefined ? { regex: re } : undefined;
  }
  const found = { ...(labels === undefined ? {} : { matchLabels: labels }), ...(m.matchExpressions === undefined ? {} : { matchExpressions: m.matchExpressions }) };
  return p.list.length === before && rewrite !== undefined ? { ...found, rewrite } : undefined;
}

/**
 * A `{ pattern, replacement }` regex as written (strings), or `undefined` when it is not usable;
 * the pattern compiles in preflight. `allowed` false: the regex is refused (it needs a path).
 *
 * @example
 * ```ts
 * checkRegex({ pattern: '^x-(.*)$', replacement: '$1' }, 'published[0].related[0].object.regex', problems, true);
 * ```
 * @param v - the regex as read.
 * @param path - its path.
 * @param p - where problems go.
 * @param allowed - whether a regex may be here.
 * @returns the regex.
 */
export function checkRegex(v: unknown, path: string, p: Problems, allowed: boolean): Json | undefined {
  if (!allowed) {
    p.add(path, 'only with path (a regex rewrites the value read at the path)');
    return undefined;
  }
  const re = mapping(v, path, ['pattern', 'replacement'], p);
  const before = p.list.length;
  for (const k of ['pattern', 'replacement']) if (re?.[k] !== undefined && typeof re[k] !== 'string') p.add(at(path, k), `expected a string, got ${describe(re[k])}`);
  return p.list.length === before ? re : undefined;
}
