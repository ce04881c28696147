// The naming templates of a published resource, in api-syncagent's Go template syntax but only the
// subset the agent documents (see PublishedNaming): `.ClusterName`, `.Object.<field>...`, and the
// hash functions `sha3short` and `shortHash`. Compiled once at load, so a typo is a config error at
// start and not a failure per object; rendered per object with api-syncagent's exact output (the
// same hex prefixes, the output trimmed of surrounding space), so names match across the two agents.
import { ConfigError } from 'rxfleet';
import { getSegments } from './object-path.js';

// From getBuiltinModule, not `import`: see rxfleet's src/client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

interface Operand {
  readonly root: string;
  readonly segments: readonly string[];
}
type Step = { readonly type: 'sha3short'; readonly length: number } | { readonly type: 'shortHash' };
type Part = { readonly type: 'text'; readonly text: string } | { readonly type: 'action'; readonly operand: Operand; readonly steps: readonly Step[] };

/**
 * A compiled template: made by {@link parseTemplate} or {@link compileTemplate}, used by
 * {@link renderTemplate}.
 *
 * @example
 * ```ts
 * const t: SyncTemplate = compileTemplate('{{ .ClusterName }}', 'published[0].naming.namespace');
 * ```
 */
export interface SyncTemplate {
  /** The template as written. */
  readonly source: string;
  /** Its text and actions, in order (opaque outside this module). */
  readonly parts: readonly unknown[];
}

/**
 * What a template is rendered against: the workspace's logical cluster and an object (the
 * consumer's object for naming; a primary on either side for related references).
 *
 * @example
 * ```ts
 * const ctx: TemplateContext = { clusterName: '1x2y3z', object: { metadata: { namespace: 'default', name: 'orders' } } };
 * ```
 */
export interface TemplateContext {
  /** `{{ .ClusterName }}`: the workspace's logical cluster name (not its path). */
  readonly cluster?: string;
  /** `{{ .Object.<field> }}`: the object, as JSON. */
  readonly object?: unknown;
  /** Other roots, by name (`Value`, `LocalObject`, `RemoteObject` in a mutation's template). */
  readonly roots?: Readonly<Record<string, unknown>>;
  /** Render a missing field as `''` (a mutation's template, as api-syncagent's) instead of reporting it. */
  readonly missingAsEmpty?: boolean;
}

/**
 * The roots a template may read: a naming or related template `.ClusterName` and `.Object`, a
 * mutation's template `.Value`, `.LocalObject` and `.RemoteObject` (api-syncagent's names).
 *
 * @example
 * ```ts
 * parseTemplate('{{ .Value }}', mutationRoots);
 * ```
 */
export type TemplateRoots = readonly string[];

/** The roots of naming and related-object templates. */
export const namingRoots: TemplateRoots = ['ClusterName', 'Object'];
/** The roots of a mutation's template. */
export const mutationRoots: TemplateRoots = ['Value', 'LocalObject', 'RemoteObject'];

/**
 * The outcome of rendering: the text, a field the object does not have (yet), or a value a template
 * cannot print or hash (an object, a list, a number piped into a hash).
 *
 * @example
 * ```ts
 * const r: TemplateResult = renderTemplate(t, ctx);
 * if (r.type === 'missing') console.log(`not yet: ${r.field} is not set`);
 * ```
 */
export type TemplateResult =
  | { readonly type: 'rendered'; readonly value: string }
  | { readonly type: 'missing'; readonly field: string }
  | { readonly type: 'invalid'; readonly message: string };

/**
 * First `length` hex characters of the SHA3-256 of a string: api-syncagent's `sha3short`.
 *
 * @example
 * ```ts
 * sha3short('orders'); // 'fe3e9668e34e13e2a6cd'
 * ```
 * @param input - the string to hash (UTF-8).
 * @param length - how many hex characters, 1–64 (longer is cut to 64, as upstream). Default 20.
 * @returns the hex prefix.
 */
export function sha3short(input: string, length = 20): string {
  return createHash('sha3-256').update(input, 'utf8').digest('hex').slice(0, length);
}

/**
 * First 20 hex characters of the SHA-1 of a string: api-syncagent's `shortHash`, kept for names made
 * by its legacy `$remoteNameHash` rules. New templates should use {@link sha3short}.
 *
 * @example
 * ```ts
 * shortHash('orders'); // '9658403816409e66eba2'
 * ```
 * @param input - the string to hash (UTF-8).
 * @returns the hex prefix.
 */
export function shortHash(input: string): string {
  return createHash('sha1').update(input, 'utf8').digest('hex').slice(0, 20);
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const space = /[ \t\r\n]/;

function operandOf(word: string, roots: TemplateRoots): Operand | string {
  const names = roots.map((r) => (r === 'ClusterName' ? '.ClusterName' : `.${r}.<field>`));
  const available = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}` : names.join('');
  const [root = '', ...segments] = word.slice(1).split('.');
  if (!word.startsWith('.') || !roots.includes(root)) {
    return word.startsWith('.') ? `${JSON.stringify(word)}: only ${available} are available` : `${JSON.stringify(word)} is not a field (${names.join(', ')}) or a function (sha3short, shortHash)`;
  }
  if (root === 'ClusterName' && segments.length > 0) return `${JSON.stringify(word)}: .ClusterName has no fields`;
  const bad = segments.find((s) => !identifier.test(s));
  return bad === undefined ? { root, segments } : `${JSON.stringify(word)}: field ${JSON.stringify(bad)} is not a template identifier (letters, digits, _)`;
}

function lengthOf(word: string): number | string {
  if (!/^[0-9]+$/.test(word) || Number(word) < 1) return `sha3short: the length must be a whole number ≥ 1, got ${JSON.stringify(word)}`;
  return Math.min(Number(word), 64);
}

// One command of a pipeline. In Go templates a piped value is the LAST argument, so `| sha3short 8`
// would pass 8 as the string to hash: upstream refuses it, and so does this, pointing at the call form.
function command(words: readonly string[], piped: boolean, roots: TemplateRoots): { operand?: Operand; step?: Step } | string {
  const [head = '', ...args] = words;
  if (head === 'sha3short' || head === 'shortHash') {
    const operands = piped ? [] : args.slice(0, 1);
    const rest = piped ? args : args.slice(1);
    if (!piped && operands.length === 0) return `${head} needs a value: write "${head} .Object.<field>" or ".Object.<field> | ${head}"`;
    if (head === 'shortHash' && rest.length > 0) return `shortHash takes no length, got ${JSON.stringify(rest.join(' '))}`;
    if (piped && rest.length > 0) return `"| sha3short ${rest.join(' ')}": a piped value comes last in Go templates; write "sha3short .Object.<field> ${rest.join(' ')}"`;
    if (rest.length > 1) return `sha3short takes one length, got ${JSON.stringify(rest.join(' '))}`;
    const length = rest[0] === undefined ? 20 : lengthOf(rest[0]);
    if (typeof length === 'string') return length;
    const step: Step = head === 'shortHash' ? { type: 'shortHash' } : { type: 'sha3short', length };
    if (operands[0] === undefined) return { step };
    const operand = operandOf(operands[0], roots);
    return typeof operand === 'string' ? operand : { operand, step };
  }
  if (piped) return `${JSON.stringify(head)}: only sha3short and shortHash can follow "|"`;
  const operand = operandOf(head, roots);
  if (typeof operand === 'string') return operand;
  return args.length > 0 ? `${JSON.stringify(words.join(' '))}: a field takes no arguments` : { operand };
}

function action(body: string, roots: TemplateRoots): Part | string {
  const commands = body.split('|').map((c) => c.trim().split(/[ \t\r\n]+/).filter((w) => w !== ''));
  if (commands.some((c) => c.length === 0)) return body.trim() === '' ? 'empty action "{{ }}"' : `${JSON.stringify(body.trim())}: empty command in the pipeline`;
  let operand: Operand | undefined;
  const steps: Step[] = [];
  for (const [i, words] of commands.entries()) {
    const c = command(words, i > 0, roots);
    if (typeof c === 'string') return c;
    operand ??= c.operand;
    if (c.step !== undefined) steps.push(c.step);
  }
  return operand === undefined ? `${JSON.stringify(body.trim())}: no value to render` : { type: 'action', operand, steps };
}

/**
 * Compiles a template, returning what is wrong instead of throwing (the config parser collects every
 * problem). Supports `{{- ` and ` -}}` (trim the space before or after), as Go does.
 *
 * @example
 * ```ts
 * const r = parseTemplate('{{ .Object.metadata.name | sha3short }}');
 * if (r.type === 'invalid') console.log(r.message);
 * ```
 * @param source - the template text.
 * @param roots - the roots it may read (default: a naming template's).
 * @returns the template, or the first problem in words.
 */
export function parseTemplate(source: string, roots: TemplateRoots = namingRoots): { readonly type: 'compiled'; readonly template: SyncTemplate } | { readonly type: 'invalid'; readonly message: string } {
  const parts: Part[] = [];
  let at = 0;
  let trimNext = false;
  for (;;) {
    const open = source.indexOf('{{', at);
    let text = source.slice(at, open < 0 ? undefined : open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    let start = open + 2;
    if (open >= 0 && source[start] === '-' && space.test(source[start + 1] ?? '')) {
      text = text.replace(/[ \t\r\n]+$/, '');
      start += 1;
    }
    if (text !== '') parts.push({ type: 'text', text });
    if (open < 0) break;
    const close = source.indexOf('}}', start);
    if (close < 0) return { type: 'invalid', message: `template ${JSON.stringify(source)}: "{{" at offset ${open} is never closed with "}}"` };
    trimNext = source[close - 1] === '-' && space.test(source[close - 2] ?? '');
    const part = action(source.slice(start, trimNext ? close - 1 : close), roots);
    if (typeof part === 'string') return { type: 'invalid', message: `template ${JSON.stringify(source)}: ${part}` };
    parts.push(part);
    at = close + 2;
  }
  return { type: 'compiled', template: Object.freeze({ source, parts: Object.freeze(parts) }) };
}

/**
 * Compiles a template or throws a {@link ConfigError} naming where it was configured.
 *
 * @example
 * ```ts
 * const name = compileTemplate('{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}', 'published[0].naming.name');
 * ```
 * @param source - the template text.
 * @param where - where it was configured, e.g. `published[0].naming.name`.
 * @returns the template.
 * @throws ConfigError when it does not compile.
 */
export function compileTemplate(source: string, where: string): SyncTemplate {
  const r = parseTemplate(source);
  if (r.type === 'invalid') throw new ConfigError(`${where}: ${r.message}`);
  return r.template;
}

const fieldOf = (o: Operand): string => ['', o.root, ...o.segments].join('.');

function rootValue(context: TemplateContext, root: string): unknown {
  if (root === 'ClusterName') return context.cluster;
  if (root === 'Object') return context.object;
  return context.roots !== undefined && Object.hasOwn(context.roots, root) ? context.roots[root] : undefined;
}

function print(value: unknown, field: string, hashed: boolean): TemplateResult {
  if (value === undefined || value === null) return { type: 'missing', field };
  if (typeof value === 'string') return { type: 'rendered', value };
  if (!hashed && (typeof value === 'number' || typeof value === 'boolean')) return { type: 'rendered', value: String(value) };
  const what = Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return { type: 'invalid', message: `${field} is ${what}, not ${hashed ? 'a string to hash' : 'a value to print'}` };
}

/**
 * Renders a template against a workspace and an object. The output is trimmed of surrounding
 * space, as api-syncagent does.
 *
 * @example
 * ```ts
 * const t = compileTemplate('{{ .Object.metadata.name | sha3short }}', 'naming.name');
 * renderTemplate(t, { clusterName: 'ws1', object: { metadata: { name: 'orders' } } });
 * // { type: 'rendered', value: 'fe3e9668e34e13e2a6cd' }
 * ```
 * @param template - a compiled template.
 * @param context - the logical cluster and the object.
 * @returns the text, or which field is missing, or why a value cannot be used.
 */
export function renderTemplate(template: SyncTemplate, context: TemplateContext): TemplateResult {
  let out = '';
  for (const part of template.parts as readonly Part[]) {
    if (part.type === 'text') {
      out += part.text;
      continue;
    }
    const field = fieldOf(part.operand);
    const value = getSegments(rootValue(context, part.operand.root), part.operand.segments);
    const printed = print(value ?? (context.missingAsEmpty === true ? '' : undefined), field, part.steps.length > 0);
    if (printed.type !== 'rendered') return printed;
    out += part.steps.reduce((s, step) => (step.type === 'shortHash' ? shortHash(s) : sha3short(s, step.length)), printed.value);
  }
  return { type: 'rendered', value: out.trim() };
}

/**
 * The fields a template reads, as written in it (`.ClusterName`, `.Object.metadata.name`, ...),
 * hashed or not, each once. What preflight checks a naming template against: two objects must
 * never render the same name, so the fields that tell them apart must all be read.
 *
 * @example
 * ```ts
 * templateFields(compileTemplate('{{ .ClusterName }}-{{ .Object.metadata.name | sha3short }}', 'naming.name'));
 * // ['.ClusterName', '.Object.metadata.name']
 * ```
 * @param template - a compiled template.
 * @returns the fields, in order of first use.
 */
export function templateFields(template: SyncTemplate): readonly string[] {
  const fields = (template.parts as readonly Part[]).flatMap((p) => (p.type === 'text' ? [] : [fieldOf(p.operand)]));
  return [...new Set(fields)];
}
