// A deleted PublishedResource's entry leaves the APIExport. Only what this agent added goes: an
// entry whose APIResourceSchema carries this agent's label and the name of a published resource
// that is no longer there (neither the config's own entries nor a PublishedResource it watches,
// served or refused). Entries added by hand or by another agent stay, and so do the permission
// claims: consumers accepted them, and taking one back would break their bindings.
import type { ClusterClient } from 'rxfleet/client';
import type { RunOptions } from 'rxfleet';
import { E } from 'rxfleet/fp';
import type { APIExport } from 'rxfleet/providers/kcp';
import { apiExports, apiResourceSchemas } from 'rxfleet/providers/kcp';
import { exportOwner } from './export-merge.js';
import { agentLabel, publishedLabel } from './labels.js';

type Logger = NonNullable<RunOptions['logger']>;

/**
 * The export without the entries of published resources not in `keep`, among the schemas this
 * agent made (`made`: schema name → the published resource's name).
 *
 * @example
 * ```ts
 * const next = withoutRetired(ex, new Map([['v1a2b3c4.databases.db.example.dev', 'databases']]), new Set());
 * ```
 * @param ex - the export as read.
 * @param made - the agent's schemas, by name, with the published resource each was made for.
 * @param keep - the names of the published resources there now.
 * @returns the export to write, or `undefined` when nothing is to be removed.
 */
export function withoutRetired(ex: APIExport, made: ReadonlyMap<string, string>, keep: ReadonlySet<string>): APIExport | undefined {
  const resources = ex.spec?.resources ?? [];
  const kept = resources.filter((r) => {
    const published = made.get(r.schema);
    return published === undefined || keep.has(published);
  });
  if (kept.length === resources.length) return undefined;
  return { ...ex, spec: { ...ex.spec, resources: kept } };
}

/**
 * Removes from the APIExport the entries this agent added for published resources no longer
 * there: one list of the agent's APIResourceSchemas (by label), one read of the export, and one
 * update when something goes (tried again on a conflict, at most 3 times). An export kept by
 * another agent is left alone.
 *
 * @example
 * ```ts
 * await retireDeleted(kcp, { apiExport: 'databases.example.dev', agentName: 'rxfleet-sync', keep: new Set(['databases']), logger });
 * ```
 * @param client - the provider workspace's client.
 * @param o - the export, the agent, the published resources there now, and where to log.
 */
export async function retireDeleted(client: ClusterClient, o: { readonly apiExport: string; readonly agentName: string; readonly keep: ReadonlySet<string>; readonly logger: Logger }): Promise<void> {
  const schemas = await client.listAll(apiResourceSchemas, { labelSelector: `${agentLabel}=${o.agentName}` });
  if (E.isLeft(schemas)) {
    o.logger.warn({ cluster: client.cluster, apiExport: o.apiExport, cause: schemas.left.message }, 'cannot list the agent\'s APIResourceSchemas; the entries of deleted PublishedResources stay until the next change');
    return;
  }
  const made = new Map(schemas.right.items.flatMap((s) => {
    const published = s.metadata.labels?.[publishedLabel];
    return published === undefined ? [] : [[s.metadata.name ?? '', published] as const];
  }));
  for (let attempt = 1; attempt <= 3; attempt++) {
    const got = await client.get(apiExports, o.apiExport);
    if (E.isLeft(got)) {
      if (got.left.type !== 'NotFound') o.logger.warn({ cluster: client.cluster, apiExport: o.apiExport, cause: got.left.message }, 'cannot read the APIExport to remove the entries of deleted PublishedResources');
      return;
    }
    const owner = exportOwner(got.right);
    if (owner !== undefined && owner !== o.agentName) return;
    const next = withoutRetired(got.right, made, o.keep);
    if (next === undefined) return;
    const gone = (got.right.spec?.resources ?? []).filter((r) => !(next.spec?.resources ?? []).includes(r));
    const written = await client.update(apiExports, next);
    if (E.isRight(written)) {
      o.logger.info({ cluster: client.cluster, apiExport: o.apiExport, removed: gone.map((r) => `${r.name}.${r.group}`), publishedResources: [...new Set(gone.map((r) => made.get(r.schema)))] }, 'removed the APIExport entries of deleted PublishedResources');
      return;
    }
    if (written.left.type !== 'Conflict') {
      o.logger.warn({ cluster: client.cluster, apiExport: o.apiExport, cause: written.left.message }, 'cannot remove the APIExport entries of deleted PublishedResources');
      return;
    }
  }
  o.logger.warn({ cluster: client.cluster, apiExport: o.apiExport }, 'the APIExport kept changing (3 conflicts); the entries of deleted PublishedResources stay until the next change');
}
