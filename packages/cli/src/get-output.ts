// `rxfleet get`, the output: a kubectl-like table with a CLUSTER column, or one `v1` `List` (JSON
// or YAML) whose items carry their cluster in the `rxfleet.dev/cluster` annotation.
import { dump } from 'js-yaml';
import type { KubeObject } from 'rxfleet';
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
 * column when the resource is namespaced (in any cluster that listed it), whether one namespace
 * or all were listed. Failed clusters have no rows here (see {@link errorTable}).
 *
 * @example
 * ```ts
 * process.stdout.write(objectTable(listings, Date.now()));
 * ```
 * @param listings - the clusters' answers, each with the resource it resolved to.
 * @param nowMs - now, for AGE.
 * @returns the table, or `No resources found.` and a newline.
 */
export function objectTable(listings: readonly ClusterListing[], nowMs: number): string {
  const namespaced = listings.some((l) => l.result._tag === 'Right' && l.resource?.namespaced === true);
  const rows: string[][] = [];
  for (const l of listings) {
    if (l.result._tag === 'Left') continue;
    for (const o of l.result.right) {
      const created = Date.parse(o.metadata.creationTimestamp ?? '');
      const name = o.metadata.name ?? '';
      rows.push(namespaced ? [l.cluster, o.metadata.namespace ?? '', name, age(created, nowMs)] : [l.cluster, name, age(created, nowMs)]);
    }
  }
  if (rows.length === 0) return 'No resources found.\n';
  rows.sort((a, b) => a.join('\0').localeCompare(b.join('\0')));
  return columns([namespaced ? ['CLUSTER', 'NAMESPACE', 'NAME', 'AGE'] : ['CLUSTER', 'NAME', 'AGE'], ...rows]);
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
 * items lack them: from the resource its cluster resolved) and its cluster in the
 * `rxfleet.dev/cluster` annotation, so `kubectl apply -f` and `jq` read it like any List. As
 * kubectl, `metadata.managedFields` is left out unless `showManagedFields`.
 *
 * @example
 * ```ts
 * process.stdout.write(objectList(listings, 'yaml'));
 * ```
 * @param listings - the clusters' answers.
 * @param format - `json` or `yaml`.
 * @param showManagedFields - keep `metadata.managedFields` (kubectl's `--show-managed-fields`).
 * @returns the text, ending in a newline.
 */
export function objectList(listings: readonly ClusterListing[], format: 'json' | 'yaml', showManagedFields = false): string {
  const items: KubeObject[] = listings.flatMap((l) =>
    l.result._tag === 'Left'
      ? []
      : l.result.right.map((o) => {
          const { managedFields, ...metadata } = o.metadata;
          const apiVersion = o.apiVersion ?? (l.resource === undefined ? undefined : apiVersionOf(l.resource));
          const kind = o.kind ?? l.resource?.kind;
          return {
            ...o,
            ...(apiVersion === undefined ? {} : { apiVersion }),
            ...(kind === undefined ? {} : { kind }),
            metadata: { ...metadata, ...(showManagedFields && managedFields !== undefined ? { managedFields } : {}), annotations: { ...o.metadata.annotations, [clusterAnnotation]: l.cluster } },
          };
        }),
  );
  const list = { apiVersion: 'v1', kind: 'List', items };
  return format === 'json' ? `${JSON.stringify(list, null, 2)}\n` : dump(list, { noRefs: true, lineWidth: -1 });
}
