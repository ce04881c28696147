// The published filter's label selector, in the string form `kubectl -l` and the API server take
// (`tier=prod,env in (a,b),!legacy`), checked once when the config is read and matched by the agent
// itself: its watch sees every object, so an object that loses a label is seen leaving the filter
// (and released) instead of looking deleted.

/**
 * A compiled label selector.
 *
 * @example
 * ```ts
 * const r = parseLabelSelector('tier=prod');
 * if (r.type === 'parsed') r.matches({ tier: 'prod' }); // true
 * ```
 */
export type ParsedSelector =
  | {
      readonly type: 'parsed';
      /** Whether labels satisfy every requirement. */
      readonly matches: (labels: Readonly<Record<string, string>>) => boolean;
    }
  | {
      readonly type: 'invalid';
      /** What is wrong, naming the requirement. */
      readonly message: string;
    };

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

const keyPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valuePattern = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const setForm = /^([^\s!=<>]+)\s+(in|notin)\s*\((.*)\)$/;
const opForm = /^([^\s!=<>]+)\s*(==|!=|=|<|>)\s*(.*)$/;

// Requirements are separated by commas outside parentheses.
function split(s: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth < 0 || depth > 1) return undefined;
    if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  out.push(s.slice(start).trim());
  return out;
}

function requirement(term: string): Requirement | string {
  const set = setForm.exec(term);
  if (set !== null) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    if (!keyPattern.test(key)) return `${JSON.stringify(key)} is not a label key`;
    const bad = values.find((v) => !valuePattern.test(v));
    if (bad !== undefined) return `${JSON.stringify(bad)} is not a label value`;
    return op === 'in' ? (l) => l[key] !== undefined && values.includes(l[key]) : (l) => l[key] === undefined || !values.includes(l[key]);
  }
  const binary = opForm.exec(term);
  if (binary !== null) {
    const [, key = '', op, value = ''] = binary;
    if (!keyPattern.test(key)) return `${JSON.stringify(key)} is not a label key`;
    if (op === '<' || op === '>') {
      if (!/^-?[0-9]+$/.test(value)) return `${op} needs a whole number, got ${JSON.stringify(value)}`;
      const n = Number(value);
      return (l) => l[key] !== undefined && /^-?[0-9]+$/.test(l[key]) && (op === '<' ? Number(l[key]) < n : Number(l[key]) > n);
    }
    if (!valuePattern.test(value)) return `${JSON.stringify(value)} is not a label value`;
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const negated = term.startsWith('!');
  const key = negated ? term.slice(1).trim() : term;
  if (!keyPattern.test(key)) return `${JSON.stringify(term)} is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`;
  return negated ? (l) => l[key] === undefined : (l) => l[key] !== undefined;
}

/**
 * Compiles a label selector string (`kubectl -l` syntax): requirements separated by commas, each
 * `key`, `!key`, `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key>n`,
 * `key<n`. Every requirement must hold.
 *
 * @example
 * ```ts
 * const r = parseLabelSelector('tier in (gold,silver),!legacy');
 * if (r.type === 'invalid') console.log(r.message);
 * ```
 * @param selector - the selector text.
 * @returns the matcher, or what is wrong.
 */
export function parseLabelSelector(selector: string): ParsedSelector {
  const terms = split(selector);
  if (terms === undefined) return { type: 'invalid', message: 'has unbalanced parentheses' };
  const reqs: Requirement[] = [];
  for (const t of terms) {
    if (t === '') return { type: 'invalid', message: 'has an empty requirement' };
    const r = requirement(t);
    if (typeof r === 'string') return { type: 'invalid', message: r };
    reqs.push(r);
  }
  return { type: 'parsed', matches: (labels) => reqs.every((r) => r(labels)) };
}
