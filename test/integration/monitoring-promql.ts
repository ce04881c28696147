// What the monitoring tests read out of PromQL and out of /metrics: the series an expression selects
// (metric names and the labels its matchers name), the labels it groups or matches by, and the
// metric families a scrape holds with the label names seen on their samples. A small tokenizer for
// the PromQL deploy/monitoring uses, not a full parser: promtool parses every expression for real
// (monitoring-rules.test.ts), this only finds names.

/** A vector selector: `metric{label="x",other=~"y"}` gives `{ metric, labels: ['label', 'other'] }`. */
export interface Selector {
  readonly metric: string;
  readonly labels: readonly string[];
}

/** The names an expression uses. */
export interface PromqlRefs {
  readonly selectors: readonly Selector[];
  /** Labels of `by`, `without`, `on`, `ignoring`, `group_left`, `group_right` lists. */
  readonly grouping: readonly string[];
}

const LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const NOT_METRICS = new Set([
  ...LISTS,
  ...['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan'],
  ...['sum', 'min', 'max', 'avg', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'group', 'limitk', 'limit_ratio'],
]);

/** Grafana's variables as a query would be sent: `$__rate_interval` 5m, `$controller`/`$cluster` all. */
export function withVariables(expr: string): string {
  return expr.replaceAll('$__rate_interval', '5m').replaceAll('$controller', '.*').replaceAll('$cluster', '.*');
}

function skipQuoted(s: string, i: number): number {
  const quote = s[i];
  let j = i + 1;
  while (j < s.length && s[j] !== quote) j += s[j] === '\\' ? 2 : 1;
  return j + 1;
}

function identAt(s: string, i: number): string {
  return /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(s.slice(i))?.[0] ?? '';
}

function nextNonSpace(s: string, i: number): number {
  let j = i;
  while (j < s.length && /\s/.test(s[j] ?? '')) j++;
  return j;
}

/** The label names inside `(a, b)` or `{a="x", b!~"y"}` starting at `open`, and the index after the closing bracket. */
function names(s: string, open: number): { labels: string[]; end: number } {
  const close = s[open] === '(' ? ')' : '}';
  const labels: string[] = [];
  let i = open + 1;
  let expectName = true;
  while (i < s.length && s[i] !== close) {
    const ch = s[i] ?? '';
    if (ch === '"' || ch === "'" || ch === '`') i = skipQuoted(s, i);
    else if (ch === ',') {
      expectName = true;
      i++;
    } else if (/[a-zA-Z_]/.test(ch)) {
      const id = identAt(s, i);
      if (expectName) labels.push(id);
      expectName = false;
      i += id.length;
    } else i++;
  }
  return { labels, end: i + 1 };
}

/**
 * The selectors and grouping labels of a PromQL expression (Grafana variables already replaced).
 *
 * @example
 * ```ts
 * promqlRefs('sum by (cluster) (rate(rxfleet_reconcile_total{result!="dropped"}[5m]))');
 * // { selectors: [{ metric: 'rxfleet_reconcile_total', labels: ['result'] }], grouping: ['cluster'] }
 * ```
 * @param expr - the expression.
 * @returns what it names.
 */
export function promqlRefs(expr: string): PromqlRefs {
  const selectors: Selector[] = [];
  const grouping: string[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i] ?? '';
    if (ch === '"' || ch === "'" || ch === '`') i = skipQuoted(expr, i);
    else if (ch === '[') i = expr.indexOf(']', i) + 1;
    else if (/[0-9.]/.test(ch)) i += /^[0-9.][0-9a-zA-Z.]*/.exec(expr.slice(i))?.[0].length ?? 1;
    else if (/[a-zA-Z_:]/.test(ch)) {
      const id = identAt(expr, i);
      const after = nextNonSpace(expr, i + id.length);
      const lower = id.toLowerCase();
      if (LISTS.has(lower) && expr[after] === '(') {
        const list = names(expr, after);
        grouping.push(...list.labels);
        i = list.end;
      } else if (NOT_METRICS.has(lower) || expr[after] === '(') i += id.length; // a keyword, an aggregation or a function
      else if (expr[after] === '{') {
        const m = names(expr, after);
        selectors.push({ metric: id, labels: m.labels });
        i = m.end;
      } else {
        selectors.push({ metric: id, labels: [] });
        i += id.length;
      }
    } else i++;
  }
  return { selectors, grouping };
}

/**
 * The metric families of a Prometheus text exposition that have samples, with every label name
 * seen on them (`# HELP`/`# TYPE` alone, a family with no sample yet, does not count).
 *
 * @example
 * ```ts
 * scrapedSeries('rxfleet_engaged_clusters{controller="c"} 2\n').get('rxfleet_engaged_clusters'); // Set { 'controller' }
 * ```
 * @param text - what `/metrics` served.
 * @returns metric name -> label names.
 */
export function scrapedSeries(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const metric = identAt(line, 0);
    const labels = out.get(metric) ?? new Set<string>();
    if (line[metric.length] === '{') for (const l of names(line, metric.length).labels) labels.add(l);
    out.set(metric, labels);
  }
  return out;
}

/**
 * The metric families a scrape declares (its `# TYPE` lines), samples or not: a labelled counter
 * nothing has counted yet is declared too.
 *
 * @example
 * ```ts
 * servedFamilies('# TYPE rxfleet_engaged_clusters gauge\nrxfleet_engaged_clusters 2\n'); // ['rxfleet_engaged_clusters']
 * ```
 * @param text - a Prometheus text exposition.
 * @returns the family names, in the order served.
 */
export function servedFamilies(text: string): string[] {
  return text.split('\n').flatMap((line) => /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) /.exec(line)?.[1] ?? []);
}

/**
 * What is missing from a scrape for an expression: `metric` when no sample of it was served,
 * `metric{label}` for a matcher's label no sample of it carries, `by (label)` for a grouping label
 * none of the expression's series carries. `targetLabels` are added by Prometheus at scrape time.
 *
 * @example
 * ```ts
 * missingFrom(scrapedSeries(text), 'sum by (cluster) (rxfleet_engaged_clusters)'); // ['by (cluster)']
 * ```
 * @param scraped - from {@link scrapedSeries}.
 * @param expr - the expression.
 * @param targetLabels - labels the scrape adds (`instance`, `job`).
 * @returns what is missing, empty when nothing is.
 */
export function missingFrom(scraped: ReadonlyMap<string, ReadonlySet<string>>, expr: string, targetLabels: readonly string[] = ['instance', 'job']): string[] {
  const refs = promqlRefs(withVariables(expr));
  const missing: string[] = [];
  const carried = new Set(targetLabels);
  for (const s of refs.selectors) {
    const labels = scraped.get(s.metric);
    if (labels === undefined) {
      missing.push(s.metric);
      continue;
    }
    for (const l of labels) carried.add(l);
    for (const l of s.labels) if (!labels.has(l) && !targetLabels.includes(l)) missing.push(`${s.metric}{${l}}`);
  }
  for (const l of refs.grouping) if (!carried.has(l)) missing.push(`by (${l})`);
  return missing;
}

/**
 * The value of the first sample of `metric` whose labels include `labels`, or undefined.
 *
 * @example
 * ```ts
 * sampleValue('rxfleet_watch_healthy{cluster="east",resource="configmaps",controller="c"} 0\n', 'rxfleet_watch_healthy', { cluster: 'east' }); // 0
 * ```
 * @param text - what `/metrics` served.
 * @param metric - the metric's name.
 * @param labels - label values the sample must have (others may be there too).
 * @returns its value.
 */
export function sampleValue(text: string, metric: string, labels: Readonly<Record<string, string>>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`);
  for (const line of text.split('\n')) {
    if (identAt(line, 0) !== metric || (line[metric.length] !== '{' && line[metric.length] !== ' ')) continue;
    const close = line.lastIndexOf('}');
    const inside = close < 0 ? '' : line.slice(metric.length + 1, close);
    if (wanted.every((w) => inside.split(/,(?=[a-zA-Z_]\w*=")/).includes(w))) return Number(line.slice(close < 0 ? metric.length : close + 1).trim().split(' ')[0]);
  }
  return undefined;
}
