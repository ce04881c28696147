// Sharding replicas of a controller of an APIExport's Widgets, as the kcp sharding tests run them:
// runs in this process, each with its own identity and membership Lease in the provider workspace,
// recording which replica reconciled which Widget; and the wait until they have split the
// workspaces, with the split rendezvous hashing gives.
import { pino } from 'pino';
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, RunHandle } from '../../src/index.js';
import { clusterName, controller, done, leases, run } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import type { ReplicaState } from '../../src/runtime/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import type { InformersOptions, ManagementWatchOptions } from '../../src/streams/index.js';
import type { ApiExportFixture, Widget } from './kcp-apiexport.js';
import { eventually } from './wait.js';

const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

/** A Widget reconcile: which replica, which workspace, which Widget. */
export interface Reconciled {
  readonly by: string;
  readonly cluster: ClusterName;
  readonly name: string;
}

/** A replica and its identity. */
export interface Replica {
  readonly identity: string;
  readonly handle: RunHandle;
}

/** Sharding replicas of one controller, and what they did. */
export interface ShardingReplicas {
  /** A client of the provider workspace, where the membership Leases live. */
  readonly home: ClusterClient;
  /** Every reconcile of every replica, in order. */
  readonly reconciled: readonly Reconciled[];
  /** Starts a replica with this identity. */
  start(identity: string): Promise<Replica>;
  /** The workspaces a replica runs. */
  readonly names: (r: Replica) => ClusterName[];
  /**
   * Waits until both replicas are confirmed in a two-member view (a replica alone at first
   * legitimately runs them all) and every one of `total` workspaces is engaged by exactly one of
   * them; returns those workspaces and the owner rendezvous hashing gives each.
   */
  split(a: Replica, b: Replica, total: number, timeoutMs: number): Promise<{ readonly all: ClusterName[]; readonly expected: ReadonlyMap<string, string> }>;
  /** The names of the controller's membership Leases left in the provider workspace. */
  leasesLeft(): Promise<readonly string[]>;
  /** Stops every replica started (a stopped one again is a no-op), then closes the provider workspace's client. */
  close(): Promise<void>;
}

/**
 * Sharding replicas of a controller named `name` of the fixture's Widgets.
 *
 * @example
 * ```ts
 * const rs = shardingReplicas(fx, 'widgets-sharded', fastWatch);
 * const a = await rs.start('replica-a');
 * ```
 * @param fx - the APIExport of Widgets.
 * @param name - the controller's name (and its Leases' label).
 * @param watch - the provider's and the informers' watch options.
 * @returns the replicas' starter and record.
 */
export function shardingReplicas(fx: ApiExportFixture, name: string, watch: ManagementWatchOptions & InformersOptions): ShardingReplicas {
  const made = createClusterClient(clusterName('provider'), { yaml: fx.providerKubeconfig() });
  if (E.isLeft(made)) throw new Error(made.left.message);
  const home: Cluster = { name: clusterName('provider'), client: made.right };
  const reconciled: Reconciled[] = [];
  const started: RunHandle[] = [];
  const latest = new Map<string, ReplicaState>();
  const names = (r: Replica): ClusterName[] => r.handle.fleet.clusters().map((c) => c.name);
  const settled = (id: string): boolean => {
    const s = latest.get(id);
    return s?.type === 'sharing' && s.confirmed && s.members.length === 2;
  };
  return {
    home: made.right,
    reconciled,
    names,
    start: async (identity) => {
      const c = controller<Widget>({
        name,
        provider: apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: watch, exportName: fx.exportName }),
        resource: fx.widgets,
        watchOptions: watch,
        reconcile: (req) => {
          reconciled.push({ by: identity, cluster: req.cluster, name: req.key.name });
          return done();
        },
      });
      const handle = await run(c, { logger: pino({ level: 'silent' }), http: false, signals: false, replicas: { type: 'sharding', home, namespace: 'default', identity, timing } });
      handle.replica?.states.subscribe((s: ReplicaState) => latest.set(identity, s));
      started.push(handle);
      return { identity, handle };
    },
    split: async (a, b, total, timeoutMs) => {
      await eventually('the workspaces split between both replicas', () => {
        const [x, y] = [names(a), names(b)];
        return settled(a.identity) && settled(b.identity) && x.length + y.length === total && new Set([...x, ...y]).size === total ? true : undefined;
      }, { timeoutMs });
      const all = [...names(a), ...names(b)];
      return { all, expected: rendezvousAssignments([{ identity: a.identity, weight: 1 }, { identity: b.identity, weight: 1 }], all) };
    },
    leasesLeft: async () => {
      const left = await made.right.list(leases, { namespace: 'default', labelSelector: `rxfleet.io/replicas=${name}` });
      if (E.isLeft(left)) throw new Error(`listing the membership Leases: ${left.left.message}`);
      return left.right.items.map((l) => l.metadata.name ?? '');
    },
    close: async () => {
      for (const h of started) await h.stop();
      made.right.close();
    },
  };
}
