// PublishedResource objects on the service cluster (`watchPublishedResources: true`), as api-syncagent
// reads them: their current set, listed again after every change the watch reports, and each
// object's verdict. An object is accepted on its own (converted, then checked against the servers
// together with those accepted before it), so one that cannot be served is refused on its own
// status, with the reason, and the others run.
import type { Observable } from 'rxjs';
import { concatMap, debounceTime, defer, distinctUntilChanged, from, startWith } from 'rxjs';
import type { ClusterClient } from 'rxfleet/client';
import { ConfigError, resource } from 'rxfleet';
import type { KubeObject, RunOptions } from 'rxfleet';
import { E } from 'rxfleet/fp';
import { parseSyncConfig } from './config.js';
import type { PublishedPlan } from './plan.js';
import type { PreflightClients } from './preflight.js';
import { preflight, serviceCrds } from './preflight.js';
import { publishedResourceApiVersion } from './published-resource.js';
import { reopenedWatch } from './reopened-watch.js';
import { apiResourceSchemaOf } from './schema.js';
import type { PublishedResource, SyncConfig } from './types.js';

type Logger = NonNullable<RunOptions['logger']>;

/**
 * A PublishedResource as the agent reads it from the service cluster.
 *
 * @example
 * ```ts
 * const o: PublishedResourceObject = { metadata: { name: 'databases' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database' } } };
 * ```
 */
export interface PublishedResourceObject extends KubeObject {
  readonly spec?: unknown;
  readonly status?: { readonly conditions?: readonly Condition[]; readonly resourceSchemaName?: string };
}

interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: string;
}

/** api-syncagent's PublishedResources (`crd/publishedresources.yaml` installs the CRD). */
const publishedResources = resource<PublishedResourceObject>({ group: 'syncagent.kcp.io', version: 'v1alpha1', plural: 'publishedresources', kind: 'PublishedResource', namespaced: false });

/** What changes a PublishedResource's meaning: its spec (generation) and its labels; not its status. */
const fingerprint = (items: readonly PublishedResourceObject[]): string =>
  JSON.stringify(items.map((o) => [o.metadata.name, o.metadata.uid, o.metadata.generation, o.metadata.labels ?? {}]).sort());

/**
 * The PublishedResources on the service cluster that `selector` matches, each time their set or a
 * spec changes (listed again `debounceMs` after the watch's last event; a failing watch is opened
 * again after 2 to 30 s (reopened-watch.ts); a failing list is logged and waits for the next event).
 */
export function publishedResourceSnapshots(client: ClusterClient, selector: string | undefined, logger: Logger, debounceMs = 300): Observable<readonly PublishedResourceObject[]> {
  const opts = selector === undefined ? {} : { labelSelector: selector };
  const events = reopenedWatch(defer(() => client.watch(publishedResources, opts)));
  return events.pipe(
    startWith(''),
    debounceTime(debounceMs),
    concatMap(() => from(client.listAll(publishedResources, opts))),
    concatMap((r) => {
      if (E.isRight(r)) return [r.right.items];
      logger.warn({ cluster: client.cluster, resource: 'publishedresources.syncagent.kcp.io', cause: r.left.message }, 'cannot list PublishedResources on the service cluster (is crd/publishedresources.yaml applied?)');
      return [];
    }),
    distinctUntilChanged((a, b) => fingerprint(a) === fingerprint(b)),
  );
}

/** What the agent decided about one PublishedResource. */
export interface Verdict {
  readonly name: string;
  readonly generation: number | undefined;
  readonly accepted: boolean;
  readonly message: string;
  /** The APIResourceSchema the publisher makes of it (served ones; api-syncagent's `status.resourceSchemaName`). */
  readonly schema?: string;
}

/**
 * Another kcp installation's check of a set of published resources (its kcp's preflight), for
 * {@link acceptPublished}: resolves when it passes, rejects with a `ConfigError` for what its kcp
 * refuses, with another error when its kcp cannot be read.
 *
 * @example
 * ```ts
 * const eu: InstallationPreflight = { name: 'eu', check: (config: SyncConfig) => preflight({ ...config, apiExport: 'databases.eu.example.dev' }, euClients) };
 * ```
 */
export interface InstallationPreflight {
  /** The installation's name. */
  readonly name: string;
  /** Checks the set against its kcp. */
  readonly check: (config: SyncConfig) => Promise<unknown>;
}

/** What {@link acceptPublished} decided. */
export interface Accepted {
  /** The plans of the config's own entries and of every PublishedResource served. */
  readonly plans: readonly PublishedPlan[];
  /** One per PublishedResource. */
  readonly verdicts: readonly Verdict[];
  /**
   * The other installations not checked this time, by name, with the cause: their kcp could not be
   * read, or it refused even the config's own entries. Nothing is refused because of them; they are
   * checked again at the next call.
   */
  readonly unchecked: ReadonlyMap<string, string>;
}

/**
 * The plans of `base` (the config's own entries, already checked) and of every PublishedResource that
 * can be served, with a verdict per object. Objects are tried in name order, each with those accepted
 * before it, so a conflict between two refuses the later one. Each is checked against the default
 * installation's kcp, then against every other installation's (`others`): what one of them refuses
 * refuses the object, naming the installation, since a published resource's sync controller reads
 * every installation's workspaces; one whose kcp cannot be read is left out (`unchecked`) and
 * refuses nothing. `clients` are a round's (preflight-round.ts): each server is read once for all
 * the checks, and the served ones' schema names come from the CRDs the checks listed.
 */
export async function acceptPublished(config: SyncConfig, objects: readonly PublishedResourceObject[], clients: PreflightClients, others: readonly InstallationPreflight[] = []): Promise<Accepted> {
  let accepted: readonly PublishedResource[] = config.published;
  let plans = await preflight(config, clients);
  const unchecked = new Map<string, string>();
  // Every other installation still checked, on `candidate`: a refusal of an object names the installation.
  const inOthers = async (candidate: SyncConfig, refuse: boolean): Promise<void> => {
    for (const i of others) {
      if (unchecked.has(i.name)) continue;
      try {
        await i.check(candidate);
      } catch (err) {
        if (refuse && err instanceof ConfigError) throw new ConfigError(`installation "${i.name}": ${err.message}`);
        unchecked.set(i.name, err instanceof Error ? err.message : String(err));
      }
    }
  };
  await inOthers(config, false);
  const verdicts: Verdict[] = [];
  const sorted = [...objects].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  for (const o of sorted) {
    const name = o.metadata.name ?? '';
    const where = `PublishedResource "${name}" on the service cluster`;
    const verdict = (ok: boolean, message: string): void => {
      verdicts.push({ name, generation: o.metadata.generation, accepted: ok, message });
    };
    try {
      const doc = { apiVersion: publishedResourceApiVersion, kind: 'PublishedResource', metadata: { name, labels: o.metadata.labels ?? {} }, spec: o.spec };
      const one = parseSyncConfig({ apiExport: config.apiExport, ...(config.agentName === undefined ? {} : { agentName: config.agentName }), published: [doc] }, where);
      const entries = one.published.map((e) => ({ ...e, from: where }));
      const taken = entries.find((e) => accepted.some((a) => a.name === e.name));
      if (taken !== undefined) throw new ConfigError(`${where}: the name "${taken.name}" is already published (${accepted.find((a) => a.name === taken.name)?.from ?? 'the config file'})`);
      const next = [...accepted, ...entries];
      const checked = await preflight({ ...config, published: next }, clients);
      await inOthers({ ...config, published: next }, true);
      plans = checked;
      accepted = next;
      const mine = plans.filter((p) => entries.some((e) => e.name === p.published.name));
      verdicts.push({ name, generation: o.metadata.generation, accepted: true, message: `served as ${mine.map((p) => `${p.kcp.plural}.${p.kcp.group}`).join(', ')}`, ...(await schemaNameOf(mine[0], clients.service)) });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      verdict(false, err.message);
    }
  }
  // A served one says where it is not checked yet: served there only once it is.
  const pending = [...unchecked.keys()].map((n) => `installation "${n}"`).join(', ');
  const said = pending === '' ? verdicts : verdicts.map((v) => (v.accepted ? { ...v, message: `${v.message}; not checked yet in ${pending} (its kcp cannot be read or refuses the config), published there once it is` } : v));
  return { plans, verdicts: said, unchecked };
}

// The name the publisher gives the plan's APIResourceSchema (a hash of its spec), made from the CRD in
// the list the preflight read: through a round's client, no request of its own.
async function schemaNameOf(plan: PublishedPlan | undefined, service: ClusterClient): Promise<{ schema?: string }> {
  if (plan === undefined) return {};
  const listed = await serviceCrds(service);
  const crd = E.isLeft(listed) ? undefined : listed.right.items.find((c) => c.metadata.name === `${plan.service.plural}.${plan.service.group}`);
  if (crd === undefined) return {};
  const made = apiResourceSchemaOf(crd, plan.published, plan.agentName);
  return made.type === 'schema' && made.schema.metadata.name !== undefined ? { schema: made.schema.metadata.name } : {};
}

const fields = (v: Verdict): Record<string, unknown> => ({ publishedResource: v.name, accepted: v.accepted, reason: v.message });

/** Logs each verdict with the object's name (every replica: a standby says what it would serve). */
export function logVerdicts(verdicts: readonly Verdict[], logger: Logger): void {
  for (const v of verdicts) {
    if (v.accepted) logger.info(fields(v), 'PublishedResource served');
    else logger.error(fields(v), 'PublishedResource refused');
  }
}

/**
 * Writes each verdict as the `Ready` condition of its PublishedResource, and a served one's
 * APIResourceSchema as `status.resourceSchemaName` (as api-syncagent does; a refused one keeps the
 * name it had), only when something changed; where
 * that cannot be written (no status subresource, forbidden), that is logged with the name. Only the
 * replica that runs the controllers writes (one writer).
 */
export async function writeVerdicts(client: ClusterClient, objects: readonly PublishedResourceObject[], verdicts: readonly Verdict[], logger: Logger, now: () => Date): Promise<void> {
  for (const v of verdicts) {
    const log = fields(v);
    const was = objects.find((o) => o.metadata.name === v.name)?.status;
    const current = was?.conditions?.find((c) => c.type === 'Ready');
    const schema = v.schema === undefined || v.schema === was?.resourceSchemaName ? {} : { resourceSchemaName: v.schema };
    const status = v.accepted ? 'True' : 'False';
    const reason = v.accepted ? 'Served' : 'Refused';
    const message = v.message.slice(0, 4_000);
    if (current?.status === status && current.reason === reason && current.message === message && current.observedGeneration === v.generation && Object.keys(schema).length === 0) continue;
    const condition: Condition = { type: 'Ready', status, reason, message, ...(v.generation === undefined ? {} : { observedGeneration: v.generation }), lastTransitionTime: now().toISOString().replace(/\.\d+Z$/, 'Z') };
    const r = await client.patch(publishedResources, v.name, { status: { conditions: [condition], ...schema } }, { type: 'merge', subresource: 'status' });
    if (E.isLeft(r)) logger.warn({ ...log, cause: r.left.message }, 'cannot write the Ready condition of a PublishedResource; its verdict is only in this log');
    else logger.info({ publishedResource: v.name, status, ...schema }, 'wrote the Ready condition of a PublishedResource');
  }
}

/** Plans' names, for the log. */
export const planNames = (plans: readonly PublishedPlan[]): readonly string[] => plans.map((p) => p.published.name);
