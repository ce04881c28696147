// What the publisher does to the APIExport, as pure functions: replace only its own group+resource
// entries (others' entries stay where they are, so an admin may add schemas by hand), make sure the
// permission claims its related resources need are there (never remove a claim: consumers accepted
// them), and mark the export with the agent's name.
import type { APIExport, ExportResource, PermissionClaim } from 'rxfleet/providers/kcp';
import { agentLabel } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { relatedResource } from './related-gvr.js';

/**
 * The agent that keeps an APIExport (its `sync.rxfleet.dev/agent` annotation), if any.
 *
 * @example
 * ```ts
 * const owner = exportOwner(ex); // 'rxfleet-sync', or undefined for an export made by hand
 * ```
 * @param ex - the APIExport.
 * @returns the agent's name, or undefined.
 */
export function exportOwner(ex: APIExport): string | undefined {
  return ex.metadata.annotations?.[agentLabel];
}

/**
 * The permission claims the plans' related resources need in consumer workspaces: every verb on
 * each related resource (its group and resource, and the identity hash of the APIExport that
 * provides it, when another one does), the agent reads and writes them on the consumer's side.
 *
 * @example
 * ```ts
 * relatedClaims(plans); // [{ group: '', resource: 'secrets', verbs: ['*'] }]
 * ```
 * @param plans - the published plans.
 * @returns one claim per related resource, sorted by resource, then group.
 */
export function relatedClaims(plans: readonly PublishedPlan[]): readonly PermissionClaim[] {
  const claims = new Map<string, PermissionClaim>();
  for (const p of plans) {
    for (const related of p.published.related ?? []) {
      const r = relatedResource(p, related, 'kcp');
      const identityHash = related.identityHash;
      claims.set(`${r.plural}.${r.group}:${identityHash ?? ''}`, { group: r.group, resource: r.plural, ...(identityHash === undefined ? {} : { identityHash }), verbs: ['*'] });
    }
  }
  return [...claims.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

/**
 * The APIExport with `entries` in place of the entries of the same group+resource (kept in their
 * position; new ones appended), `claims` ensured (a claim of the same group+resource without `*`
 * gets `['*']`), and the agent's annotation. Everything else is kept as it is.
 *
 * @example
 * ```ts
 * const next = mergeExport(current, 'rxfleet-sync', [exportEntry(schema)], relatedClaims(plans));
 * if (exportChanged(current, next)) console.log('update');
 * ```
 * @param current - the export as read (or a new `{ metadata: { name } }`).
 * @param agentName - the agent's name.
 * @param entries - this agent's resource entries to put in.
 * @param claims - the permission claims to ensure.
 * @returns the merged export.
 */
export function mergeExport(current: APIExport, agentName: string, entries: readonly ExportResource[], claims: readonly PermissionClaim[]): APIExport {
  const spec = current.spec ?? {};
  const pending = new Map(entries.map((e) => [resourceKey(e.group, e.name), e]));
  const resources: ExportResource[] = [];
  for (const r of spec.resources ?? []) {
    const k = resourceKey(r.group, r.name);
    const mine = pending.get(k);
    if (mine !== undefined) {
      resources.push(mine);
      pending.delete(k);
    } else if (!entries.some((e) => resourceKey(e.group, e.name) === k)) {
      resources.push(r); // someone else's entry
    } // else: a duplicate of an entry already replaced
  }
  resources.push(...pending.values());
  const permissionClaims: PermissionClaim[] = [...(spec.permissionClaims ?? [])];
  for (const c of claims) {
    const i = permissionClaims.findIndex((x) => (x.group ?? '') === (c.group ?? '') && x.resource === c.resource && (x.identityHash ?? '') === (c.identityHash ?? ''));
    const existing = i < 0 ? undefined : permissionClaims[i];
    if (existing === undefined) permissionClaims.push(c);
    else if (!existing.verbs.includes('*')) permissionClaims[i] = { ...existing, verbs: ['*'] };
  }
  return {
    ...current,
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [agentLabel]: agentName } },
    spec: { ...spec, resources, ...(permissionClaims.length > 0 ? { permissionClaims } : {}) },
  };
}

/**
 * Whether `next` differs from `current` in what {@link mergeExport} writes (the agent annotation,
 * the resources, the permission claims), with the server's defaults (`storage: {crd: {}}`, `group:
 * ''`, `identityHash: ''`) filled in on both sides so a round trip through the server is no change.
 *
 * @example
 * ```ts
 * exportChanged(current, mergeExport(current, 'rxfleet-sync', entries, claims)); // false when up to date
 * ```
 * @param current - the export as read.
 * @param next - the merged export.
 * @returns true when a write is needed.
 */
export function exportChanged(current: APIExport, next: APIExport): boolean {
  return exportOwner(current) !== exportOwner(next) || comparable(current) !== comparable(next);
}

function comparable(ex: APIExport): string {
  const resources = (ex.spec?.resources ?? []).map((r) => [r.group, r.name, r.schema, JSON.stringify(r.storage ?? { crd: {} })]);
  const claims = (ex.spec?.permissionClaims ?? []).map((c) => [c.group ?? '', c.resource, c.identityHash ?? '', [...c.verbs].sort().join(',')]);
  return JSON.stringify([resources, claims]);
}

function resourceKey(group: string, name: string): string {
  return `${name}.${group}`;
}
