// A related selector (`object.selector`), compiled once: its label templates (rendered per primary
// pair), its matchExpressions (as written, matched by the filter's matcher), whether it names the copy itself (a label value reads the copy's name or uid, unique in its
// namespace), and its rewrite of a found object's name into the workspace (a template, or a regex
// run by the mutation engine). And the proof a found object needs before it is used: on a service
// namespace every workspace may share, a label the operator set is not enough unless it names the copy.
import type { KubeObject } from 'rxfleet';
import { ConfigError } from 'rxfleet';
import { Problems } from './config-check.js';
import { parseLabelSelector } from './label-selector.js';
import type { SourceIdentity } from 'rxfleet/sinks';
import type { CompiledMutations } from './mutation.js';
import { compileMutations, mutate } from './mutation.js';
import { selectorString } from './published-resource-fields.js';
import type { RelatedNameResult } from './naming.js';
import { dnsSubdomainProblem } from './naming.js';
import type { SyncTemplate } from './template.js';
import { parseTemplate, renderTemplate, templateFields } from './template.js';
import type { RelatedSelector } from './types.js';
import { ownershipProblem } from './ownership.js';

const selectorRoots = ['ClusterName', 'LocalObject', 'RemoteObject'] as const;
const rewriteRoots = ['Value', 'ClusterName', 'LocalObject', 'RemoteObject'] as const;
const naming = new Set(['.LocalObject.metadata.name', '.LocalObject.metadata.uid']);

/**
 * A compiled related selector (opaque parts; see {@link compileSelector}).
 *
 * @example
 * ```ts
 * const c = compileSelector(selector);
 * if (c.type === 'compiled') console.log(c.selector.namesCopy);
 * ```
 */
export interface CompiledSelector {
  /** The label templates, key and value. */
  readonly labels: readonly (readonly [SyncTemplate, SyncTemplate])[];
  /** Whether labels meet the `matchExpressions` (all of them; true when there are none). */
  readonly expressions: (labels: Readonly<Record<string, string>>) => boolean;
  /** True when a label value reads the copy's name or uid (so it matches only this copy's objects). */
  readonly namesCopy: boolean;
  /** The rewrite: a template over `.Value`, or a one-step regex mutation. */
  readonly rewrite: { readonly type: 'template'; readonly template: SyncTemplate } | { readonly type: 'regex'; readonly mutation: CompiledMutations };
}

/**
 * Where the selector is rendered: the workspace and both primaries.
 *
 * @example
 * ```ts
 * const at: SelectorContext = { cluster: '1x2y3z', copy, consumer };
 * ```
 */
export interface SelectorContext {
  /** `.ClusterName`. */
  readonly cluster: string;
  /** `.LocalObject`: the service copy. */
  readonly copy: KubeObject;
  /** `.RemoteObject`: the consumer's object. */
  readonly consumer: KubeObject;
}

/**
 * Compiles a selector, or says every problem (relative to `selector`).
 *
 * @example
 * ```ts
 * compileSelector({ matchLabels: {}, rewrite: { template: '{{ .Value }}' } }); // invalid: matches every object
 * ```
 * @param s - the selector as configured.
 * @returns the compiled selector or the problems.
 */
export function compileSelector(s: RelatedSelector): { readonly type: 'compiled'; readonly selector: CompiledSelector } | { readonly type: 'invalid'; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const labels: (readonly [SyncTemplate, SyncTemplate])[] = [];
  let namesCopy = false;
  const entries = Object.entries(s.matchLabels ?? {});
  const found = new Problems();
  const text = s.matchExpressions === undefined ? '' : selectorString({ matchExpressions: s.matchExpressions }, '', found);
  problems.push(...found.list);
  const parsed = text === undefined || text === '' ? undefined : parseLabelSelector(text);
  const expressions = parsed?.type === 'parsed' ? parsed.matches : (): boolean => true;
  if (entries.length === 0 && (text ?? '') === '') problems.push('matchLabels: must not be empty unless matchExpressions is given (an empty selector matches every object)');
  for (const [k, v] of entries) {
    const key = parseTemplate(k, selectorRoots);
    const value = parseTemplate(v, selectorRoots);
    if (key.type === 'invalid') problems.push(`matchLabels: key ${JSON.stringify(k)}: ${key.message}`);
    if (value.type === 'invalid') problems.push(`matchLabels.${k}: ${value.message}`);
    if (key.type === 'compiled' && value.type === 'compiled') {
      labels.push([key.template, value.template]);
      namesCopy ||= templateFields(value.template).some((f) => naming.has(f));
    }
  }
  let rewrite: CompiledSelector['rewrite'] | undefined;
  if (s.rewrite.template !== undefined) {
    const t = parseTemplate(s.rewrite.template, rewriteRoots);
    if (t.type === 'invalid') problems.push(`rewrite.template: ${t.message}`);
    else rewrite = { type: 'template', template: t.template };
  } else {
    const m = compileMutations([{ regex: { path: 'name', ...s.rewrite.regex } }]);
    if (m.type === 'invalid') problems.push(...m.problems.map((p) => `rewrite.regex${p.replace(/^\[0\]\.regex/, '')}`));
    else rewrite = { type: 'regex', mutation: m.mutations };
  }
  return problems.length > 0 || rewrite === undefined ? { type: 'invalid', problems } : { type: 'compiled', selector: { labels, expressions, namesCopy, rewrite } };
}

const rootsOf = (at: SelectorContext): Readonly<Record<string, unknown>> => ({ LocalObject: at.copy, RemoteObject: at.consumer });

/**
 * The labels a selector asks for, rendered for one primary pair; `undefined` while a field it reads
 * is not set (not yet), a message when a value cannot be rendered.
 *
 * @example
 * ```ts
 * const wanted = selectorLabels(compiled, { cluster: '1x2y3z', copy, consumer });
 * ```
 * @param c - the compiled selector.
 * @param at - the workspace and primaries.
 * @returns the labels, or `undefined`, or why not.
 */
export function selectorLabels(c: CompiledSelector, at: SelectorContext): Readonly<Record<string, string>> | undefined | string {
  const out: Record<string, string> = {};
  for (const [k, v] of c.labels) {
    const key = renderTemplate(k, { cluster: at.cluster, roots: rootsOf(at) });
    const value = renderTemplate(v, { cluster: at.cluster, roots: rootsOf(at) });
    for (const r of [key, value]) {
      if (r.type === 'invalid') return r.message;
      if (r.type === 'missing') return undefined;
    }
    if (key.type === 'rendered' && value.type === 'rendered') out[key.value] = value.value;
  }
  return out;
}

/**
 * Whether an object carries every wanted label (the rendered `matchLabels`) and meets the
 * selector's `matchExpressions`.
 *
 * @example
 * ```ts
 * selects(compiled, { app: 'db' }, secret); // true when secret has app=db and meets the expressions
 * ```
 * @param c - the compiled selector.
 * @param wanted - the rendered labels.
 * @param obj - the object.
 * @returns whether it matches.
 */
export function selects(c: CompiledSelector, wanted: Readonly<Record<string, string>>, obj: KubeObject): boolean {
  const have = obj.metadata.labels ?? {};
  return Object.entries(wanted).every(([k, v]) => have[k] === v) && c.expressions(have);
}

/**
 * A found object's name on the other side (the rewrite; on the service side the agent derives the
 * name from it).
 *
 * @example
 * ```ts
 * rewriteName(compiled, 'orders-conn-x1', { cluster: '1x2y3z', copy, consumer }); // { type: 'named', name: 'orders-conn' }
 * ```
 * @param c - the compiled selector.
 * @param name - the found object's name.
 * @param at - the workspace and primaries.
 * @returns the name, or why there is none.
 */
export function rewriteName(c: CompiledSelector, name: string, at: SelectorContext): RelatedNameResult {
  let value: string;
  if (c.rewrite.type === 'template') {
    const r = renderTemplate(c.rewrite.template, { cluster: at.cluster, roots: { ...rootsOf(at), Value: name } });
    if (r.type !== 'rendered') return r.type === 'missing' ? { type: 'missing', field: r.field } : r;
    value = r.value;
  } else {
    const r = mutate(c.rewrite.mutation, { name }, undefined);
    if (r.type === 'failed') return { type: 'invalid', message: `rewrite: ${r.message}` };
    value = r.object.name;
  }
  const problem = dnsSubdomainProblem(value);
  return problem === undefined ? { type: 'named', name: value } : { type: 'invalid', message: `rewrite of ${JSON.stringify(name)} gives ${JSON.stringify(value)}, which ${problem}` };
}

/**
 * Whether a found object is proven to be this consumer object's (see the file's header): an owner
 * reference to the copy's uid, a back-reference naming exactly the consumer object, or a selector
 * that names the copy. The origin check (`originProblem`) still runs after this.
 *
 * @example
 * ```ts
 * if (!selectedProof(compiled, found, copy, source)) refuse();
 * ```
 * @param c - the compiled selector.
 * @param found - the object the selector matched.
 * @param copy - the service copy.
 * @param source - the consumer object's identity.
 * @returns whether it may be used.
 */
export function selectedProof(c: CompiledSelector, found: KubeObject, copy: KubeObject, source: SourceIdentity): boolean {
  const uid = copy.metadata.uid;
  if (uid !== undefined && (found.metadata.ownerReferences ?? []).some((o) => o.uid === uid)) return true;
  if (found.metadata.annotations !== undefined && ownershipProblem('object', found, source, 'refuse') === undefined) return true;
  return c.namesCopy;
}

const compiled = new WeakMap<RelatedSelector, CompiledSelector>();

/**
 * The compiled form of a configured selector, compiled once per run (preflight reports its problems first).
 *
 * @example
 * ```ts
 * const c = selectorOf(related.object.selector);
 * ```
 * @param s - the selector as configured.
 * @returns the compiled selector.
 * @throws ConfigError when it does not compile.
 */
export function selectorOf(s: RelatedSelector): CompiledSelector {
  let c = compiled.get(s);
  if (c === undefined) {
    const r = compileSelector(s);
    if (r.type === 'invalid') throw new ConfigError(`related selector: ${r.problems.join('; ')}`);
    c = r.selector;
    compiled.set(s, c);
  }
  return c;
}
