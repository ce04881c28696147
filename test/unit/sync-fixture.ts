// The sync controller's test bench: an in-memory fleet shaped like the agent's (consumer workspaces
// engaged with the APIExport provider's identity, a service cluster), one published resource with a
// related Secret each way, and helpers to run the controller and wait for what it converges to.
import { pino } from 'pino';
import { map } from 'rxjs';
import { vi } from 'vitest';
import type { ClusterName, KubeObject, RunHandle, Secret } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { clusterName, resource, run } from '../../src/index.js';
import type { Provider } from '../../src/streams/index.js';
import { engaged } from '../../src/streams/index.js';
import { E } from '../../src/fp/index.js';
import type { InMemoryFleet } from '../../src/testing/index.js';
import { inMemoryFleet } from '../../src/testing/index.js';
import { serviceName } from '../../packages/sync-agent/src/naming.js';
import { derivedRelatedName } from '../../packages/sync-agent/src/related-places.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { syncController } from '../../packages/sync-agent/src/sync-controller.js';

/** The published resource's objects, on both sides. */
export type Db = KubeObject & {
  readonly spec?: { readonly size?: number; readonly connectionSecretName?: string; readonly credentialsSecretName?: string };
  readonly status?: { readonly phase?: string; readonly endpoint?: string };
};

export const dbKcp = resource<Db>({ group: 'databases.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
export const dbService = resource<Db>({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });

export const plan: PublishedPlan = {
  published: {
    name: 'databases',
    crd: { group: 'db.example.dev', kind: 'Database' },
    projection: { group: 'databases.example.dev' },
    syncDown: { labels: ['app/*'] },
    related: [
      { identifier: 'connection', origin: 'service', kind: 'Secret', object: { path: 'spec.connectionSecretName' } },
      { identifier: 'credentials', origin: 'kcp', kind: 'Secret', object: { path: 'spec.credentialsSecretName' } },
    ],
  },
  agentName: 'rxfleet-sync',
  service: dbService,
  kcp: dbKcp,
  publishedVersions: ['v1'],
  statusSubresource: true,
};

export const FINALIZER = 'sync.rxfleet.dev/rxfleet-sync';

/** A consumer's Database (uid given so back-references can be built before the fleet stores it). */
export function database(name: string, spec: NonNullable<Db['spec']>, extra: Partial<KubeObject['metadata']> = {}): Db {
  return { apiVersion: 'databases.example.dev/v1', kind: 'Database', metadata: { name, namespace: 'default', ...extra }, spec };
}

export function secret(namespace: string, name: string, data: Readonly<Record<string, string>>): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data };
}

/** The fleet: every cluster but `service` is a consumer workspace. */
export function agentFleet(clusters: Readonly<Record<string, readonly KubeObject[]>>): InMemoryFleet {
  return inMemoryFleet({ clusters: { service: [], ...clusters }, resources: [dbKcp, dbService] });
}

/** Where a consumer object's copy lands (the default naming), as `namespace/name`. */
export function copyRef(workspace: string, obj: KubeObject): string {
  const at = serviceName(plan.published, workspace, obj);
  if (E.isLeft(at)) throw new Error(at.left.message);
  return `${at.right.namespace}/${at.right.name}`;
}

/** The name the agent derives on the service cluster for a related object of `obj` (its `identifier`). */
export function relatedName(workspace: string, obj: KubeObject, identifier: string): string {
  const related = plan.published.related?.find((r) => r.identifier === identifier);
  if (related === undefined) throw new Error(identifier);
  return derivedRelatedName(plan, related, workspace, { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
}

/** Where that related object is on the service cluster (the default naming), as `namespace/name`. */
export function relatedRef(workspace: string, obj: KubeObject, identifier: string): string {
  return `${copyRef(workspace, obj).split('/')[0] ?? ''}/${relatedName(workspace, obj, identifier)}`;
}

export interface Running {
  readonly handle: RunHandle;
  readonly outcomes: Outcome[];
  /** Resolves once `check` holds (polled); a run that never gets there fails the test. */
  until(check: () => boolean): Promise<void>;
}

/**
 * The fleet's provider, its workspaces relabelled as the APIExport provider's (shared by every
 * controller of a run). A workspace named `<installation>#<logical>` is another kcp installation's:
 * its logical cluster (`identity.id`) is the part after `#`.
 */
export function agentProvider(fleet: InMemoryFleet): Provider {
  return fleet.provider.pipe(
    map((ev) =>
      ev.type === 'engaged' && ev.cluster.name !== 'service'
        ? engaged({ ...ev.cluster, identity: { provider: 'kcp-apiexport', from: `workspace ${ev.cluster.name}`, id: ev.cluster.name.slice(ev.cluster.name.indexOf('#') + 1) } })
        : ev,
    ),
  );
}

/** Runs one sync controller per plan, in one run, over the fleet. */
export async function runSync(fleet: InMemoryFleet, plans: readonly PublishedPlan[] = [plan]): Promise<Running> {
  const provider = agentProvider(fleet);
  const controllers = plans.map((p) => syncController(p, { provider, consumerProvider: 'static', cacheWaitMs: 20, terminatingWaitMs: 20 }));
  const outcomes: Outcome[] = [];
  const handle = await run(controllers, { logger: pino({ level: 'silent' }), signals: false, http: false, onOutcome: (o) => outcomes.push(o) });
  const until = async (check: () => boolean): Promise<void> => {
    await vi.waitFor(
      () => {
        if (!check()) throw new Error('not yet');
      },
      { timeout: 10_000, interval: 5 },
    );
  };
  return { handle, outcomes, until };
}

export const ws = (name: string): ClusterName => clusterName(name);
