// The `adopt` stanza of a published resource (api-syncagent#129: objects made on the service cluster
// before, or without, kcp): which service objects go into which workspace and namespace. Checked
// with the rest of the file, every problem with its path; adoption itself is adopt.ts's.
import type { Json, Problems } from './config-check.js';
import { at, list, mapping, selectorProblem, text } from './config-check.js';
import { dnsLabelProblem } from './naming.js';

/**
 * Which service objects an adoption rule takes: those in a namespace of the service cluster and/or
 * matching a label selector (at least one of the two, so no rule takes a whole cluster by accident).
 *
 * @example
 * ```ts
 * const from: AdoptFrom = { namespace: 'legacy', labelSelector: 'team=a' };
 * ```
 */
export interface AdoptFrom {
  /** Only objects in this service-side namespace. */
  readonly namespace?: string;
  /** Only objects matching this label selector (`kubectl -l` syntax). */
  readonly labelSelector?: string;
}

/**
 * Where an adoption rule puts what it takes.
 *
 * @example
 * ```ts
 * const into: AdoptInto = { workspace: '2a8ksc0x6lb5yzxz', namespace: 'default' };
 * ```
 */
export interface AdoptInto {
  /** The workspace's logical cluster name (`kubectl get logicalcluster cluster -o jsonpath='{.metadata.annotations.kcp\.io/cluster}'`); it must have bound the APIExport. */
  readonly workspace: string;
  /** The namespace in the workspace (a namespaced resource only). Default `default`. */
  readonly namespace?: string;
  /** The kcp installation the workspace is in (a name in the config's `installations`). Default: the default installation. */
  readonly installation?: string;
}

/**
 * One adoption rule: each service object that `from` selects, and that no consumer object owns, gets
 * a consumer object of the same name in `into`, made from its spec; the service object is then
 * this consumer object's copy and syncs as any other (spec down, status up, deleted with it).
 *
 * @example
 * ```ts
 * const rule: AdoptRule = { from: { namespace: 'legacy' }, into: { workspace: '2a8ksc0x6lb5yzxz', namespace: 'default' } };
 * ```
 */
export interface AdoptRule {
  /** Which service objects. */
  readonly from: AdoptFrom;
  /** Into which workspace and namespace. */
  readonly into: AdoptInto;
}

/**
 * The namespace an adopted object gets in its workspace when the rule names none.
 *
 * @example
 * ```ts
 * const ns: string = rule.into.namespace ?? defaultAdoptNamespace; // 'default'
 * ```
 */
export const defaultAdoptNamespace = 'default';

/**
 * Checks a published resource's `adopt` list, and how it fits the entry's filter: an adopted object
 * must be synced, so `filter.labelSelector` is refused beside it (the adopted object has none of the
 * consumer's labels to match) and `filter.namespace`, when set, must be every rule's `into.namespace`.
 *
 * @example
 * ```ts
 * const p = new Problems();
 * checkAdopt(entry, 'published[0]', p);
 * ```
 * @param entry - the published resource, as written.
 * @param path - its path in the file.
 * @param p - where problems go.
 */
export function checkAdopt(entry: Json, path: string, p: Problems): void {
  const rules = list(entry, 'adopt', path, p, 'must not be empty; leave it out to adopt nothing');
  if (rules === undefined) return;
  const filter = typeof entry.filter === 'object' && entry.filter !== null ? (entry.filter as Json) : {};
  if (filter.labelSelector !== undefined) p.add(at(path, 'adopt'), 'cannot be used with filter.labelSelector: an adopted object must be synced, and it carries none of the labels a consumer would set');
  rules.forEach((r, i) => {
    const where = `${at(path, 'adopt')}[${i}]`;
    const m = mapping(r, where, ['from', 'into'], p);
    if (m === undefined) return;
    const from = m.from === undefined ? undefined : mapping(m.from, `${where}.from`, ['namespace', 'labelSelector'], p);
    if (from === undefined || (from.namespace === undefined && from.labelSelector === undefined)) {
      p.add(`${where}.from`, 'required: give namespace and/or labelSelector (which service objects to adopt)');
    } else {
      text(from, 'namespace', `${where}.from`, p, dnsLabelProblem);
      text(from, 'labelSelector', `${where}.from`, p, selectorProblem);
    }
    const into = m.into === undefined ? undefined : mapping(m.into, `${where}.into`, ['workspace', 'namespace', 'installation'], p);
    if (into === undefined) {
      p.add(`${where}.into`, 'required: { workspace: <logical cluster>, namespace: <namespace> }');
      return;
    }
    text(into, 'workspace', `${where}.into`, p, (s) => (dnsLabelProblem(s) === undefined ? undefined : 'is not a logical cluster name (e.g. "2a8ksc0x6lb5yzxz")'), true);
    const ns = text(into, 'namespace', `${where}.into`, p, dnsLabelProblem);
    text(into, 'installation', `${where}.into`, p, dnsLabelProblem);
    const filtered = typeof filter.namespace === 'string' ? filter.namespace : undefined;
    if (filtered !== undefined && (ns ?? defaultAdoptNamespace) !== filtered) {
      p.add(`${where}.into.namespace`, `is "${ns ?? defaultAdoptNamespace}", but filter.namespace syncs only "${filtered}": the adopted objects would never sync`);
    }
  });
}
