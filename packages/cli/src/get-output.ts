// `rxfleet get`, the output: a kubectl-like table with a CLUSTER column, or one `v1` `List` (JSON
// or YAML) whose items carry their cluster in the `rxfleet.dev/cluster` annotation.
import { dump } from 'js-yaml';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import { apiVersionOf } from 'rxfleet/client';
import type { ClusterListing } from './fleet-list.js';

/** The annotation naming the cluster an item of `-o json|yaml` comes from. @example `item.metadata.annotations[clusterAnnotation]` */
export const clusterAnnotation = 'rxfleet.dev/cluster';

/**
 * kubectl's AGE: the largest two units that matter (`45s`, `3m12s`, `5h2m`, `12d`).
 *
 * @example
 * ```ts
 * age(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T01:02:03Z')); // '62m'
 * ```
 * @param createdMs - when the object was created (ms since the epoch).
 * @param nowMs - now.
 * @returns the age, `<unknown>` when `createdMs` is not a number.
 */
export function age(createdMs: number, nowMs: number): string {
  if (!Number.isFinite(createdMs)) return '<unknown>';
  const s = Math.max(0, Math.floor((nowMs - createdMs) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 === 0 ? '' : `${m % 60}m`}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  return d < 8 && h % 24 !== 0 ? `${d}d${h % 24}h` : `${d}d`;
}

function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows.reduce<number[]>((w, r) => r.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3))).join('').trimEnd()).join('\n') + '\n';
}

/**
 * The table of every cluster's objects, sorted by cluster, namespace and name; the NAMESPACE
 * column only for namespaced resources. Failed clusters have no rows here (see {@link errorTable}).
 *
 * @example
 * ```ts
 * process.stdout.write(objectTable(listings, configMaps, Date.now()));
 * ```
 * @param listings - the clusters' answers.
 * @param resource - what was listed.
 * @param nowMs - now, for AGE.
 * @returns the table, or `No resources found.` and a newline.
 */
export function objectTable(listings: readonly ClusterListing[], resource: ResourceDescriptor, nowMs: number): string {
  const rows: string[][] = [];
  for (const l of listings) {
    if (l.result._tag === 'Left') continue;
    for (const o of l.result.right) {
      const created = Date.parse(o.metadata.creationTimestamp ?? '');
      const name = o.metadata.name ?? '';
      rows.push(resource.namespaced ? [l.cluster, o.metadata.namespace ?? '', name, age(created, nowMs)] : [l.cluster, name, age(created, nowMs)]);
    }
  }
  if (rows.length === 0) return 'No resources found.\n';
  rows.sort((a, b) => a.join('\0').localeCompare(b.join('\0')));
  return columns([resource.namespaced ? ['CLUSTER', 'NAMESPACE', 'NAME', 'AGE'] : ['CLUSTER', 'NAME', 'AGE'], ...rows]);
}

/**
 * The failed clusters, one row each (for stderr), or `''` when none failed.
 *
 * @example
 * ```ts
 * process.stderr.write(errorTable(listings));
 * ```
 * @param listings - the clusters' answers.
 * @returns `CLUSTER  ERROR` rows.
 */
export function errorTable(listings: readonly ClusterListing[]): string {
  const rows = listings.flatMap((l) => (l.result._tag === 'Left' ? [[l.cluster, `${l.result.left.type}: ${l.result.left.message}`]] : []));
  return rows.length === 0 ? '' : columns([['CLUSTER', 'ERROR'], ...rows]);
}

/**
 * Every object as one `v1` `List`: each item with its `apiVersion` and `kind` filled in (list
 * items lack them; the kind from the server's list kind, else the descriptor's) and its cluster in the `rxfleet.dev/cluster` annotation, so
 * `kubectl apply -f` and `jq` read it like any List.
 *
 * @example
 * ```ts
 * process.stdout.write(objectList(listings, configMaps, 'yaml'));
 * ```
 * @param listings - the clusters' answers.
 * @param resource - what was listed.
 * @param format - `json` or `yaml`.
 * @returns the text, ending in a newline.
 */
export function objectList(listings: readonly ClusterListing[], resource: ResourceDescriptor, format: 'json' | 'yaml'): string {
  const items: KubeObject[] = listings.flatMap((l) =>
    l.result._tag === 'Left'
      ? []
      : l.result.right.map((o) => ({
          ...o,
          apiVersion: o.apiVersion ?? apiVersionOf(resource),
          kind: o.kind ?? l.kind ?? resource.kind,
          metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, [clusterAnnotation]: l.cluster } },
        })),
  );
  const list = { apiVersion: 'v1', kind: 'List', items };
  return format === 'json' ? `${JSON.stringify(list, null, 2)}\n` : dump(list, { noRefs: true, lineWidth: -1 });
}
