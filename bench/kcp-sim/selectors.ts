// The selectors kcp-sim understands, as predicates over its stored objects: equality-based label
// selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`) and field selectors on `metadata.name` and
// `metadata.namespace`. Anything else is refused with the reason, never ignored: a selector the
// simulation silently dropped would make a benchmark look better than kcp.

/** What a selector sees of a stored object. */
export interface Selectable {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A parsed selector: `match`, or `error` saying why it cannot be served. */
export type Selector = { readonly match: (o: Selectable) => boolean; readonly error?: undefined } | { readonly error: string };

const everything = (): boolean => true;

type Term = (o: Selectable) => boolean;

function labelTerm(term: string): Term | string {
  const t = term.trim();
  if (/[()<>]|\s(in|notin)\s/.test(t)) return `set-based label selector term "${t}" is not supported by kcp-sim`;
  const m = /^([^!=\s]+)\s*(==|=|!=)\s*([^!=\s]*)$/.exec(t);
  if (m !== null) {
    const [, key = '', op, value = ''] = m;
    return op === '!=' ? (o) => o.labels[key] !== value : (o) => o.labels[key] === value;
  }
  if (/^![^!=\s]+$/.test(t)) return (o) => o.labels[t.slice(1)] === undefined;
  if (/^[^!=\s]+$/.test(t)) return (o) => o.labels[t] !== undefined;
  return `label selector term "${t}" cannot be parsed`;
}

function fieldTerm(term: string): Term | string {
  const m = /^\s*(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)\s*$/.exec(term);
  if (m === null) return `field selector term "${term.trim()}" is not supported by kcp-sim (only metadata.name and metadata.namespace)`;
  const [, field, op, value = ''] = m;
  const get = field === 'metadata.name' ? (o: Selectable): string => o.name : (o: Selectable): string => o.namespace;
  return op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value;
}

function conjunction(text: string | null, parse: (term: string) => Term | string): Selector {
  if (text === null || text.trim() === '') return { match: everything };
  const terms: Term[] = [];
  for (const raw of text.split(',')) {
    const t = parse(raw);
    if (typeof t === 'string') return { error: t };
    terms.push(t);
  }
  return { match: (o) => terms.every((t) => t(o)) };
}

/**
 * The selector of a request's `labelSelector` and `fieldSelector` together.
 *
 * @example
 * ```ts
 * const s = selectorOf('app=web', 'metadata.name=a');
 * if (s.error === undefined) s.match({ name: 'a', namespace: 'default', labels: { app: 'web' } }); // true
 * ```
 * @param labels - the `labelSelector` parameter (null when absent).
 * @param fields - the `fieldSelector` parameter (null when absent).
 * @returns the predicate, or why it cannot be served.
 */
export function selectorOf(labels: string | null, fields: string | null): Selector {
  const l = conjunction(labels, labelTerm);
  if (l.error !== undefined) return l;
  const f = conjunction(fields, fieldTerm);
  if (f.error !== undefined) return f;
  return { match: (o) => l.match(o) && f.match(o) };
}
