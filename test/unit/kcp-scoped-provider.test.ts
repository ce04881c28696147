// The APIExport provider narrowed to a scope (what a sharding replica asks of it): it engages only
// the workspaces the scope wants (the others get no client), keeps only their objects from the
// shared wildcard watch (the others are dropped as they arrive), and when the scope changes gives
// up the workspaces it lost (saying why) and engages the ones it gained, which get their objects
// from one relist of the shared watch. Against kcp-sim (bench/kcp-sim), in this process.
import { Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterName, KubeObject, ObjectKey } from '../../src/index.js';
import { clusterName, done } from '../../src/index.js';
import { reconcile } from '../../src/operators/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import type { FleetScope } from '../../src/streams/fleet-scope.js';
import { narrowProvider } from '../../src/streams/fleet-scope.js';
import type { KcpSim } from '../../bench/kcp-sim/server.js';
import { startKcpSim } from '../../bench/kcp-sim/server.js';
import type { SimExport } from '../../bench/kcp-sim/workspaces.js';
import { bindSimWorkspaces, setupSimExport } from '../../bench/kcp-sim/workspaces.js';
import { eventually } from '../support/wait.js';

const WORKSPACES = 6;
const OBJECTS = 2;
let sim: KcpSim;
let fx: SimExport;
let names: string[];

beforeAll(async () => {
  sim = await startKcpSim();
  fx = setupSimExport(sim);
  names = bindSimWorkspaces(sim, fx, 0, WORKSPACES, OBJECTS);
});
afterAll(async () => {
  await sim.close();
});

const widgetRequests = (): number => (sim.requests.get('watch widgets') ?? 0) + (sim.requests.get('list widgets') ?? 0);
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

describe('the APIExport provider narrowed to a scope', () => {
  it('engages and caches only the wanted workspaces, and follows the scope as it changes', async () => {
    const [w0, w1, w2, w3, w4, w5] = names.map((n) => clusterName(n));
    if (w0 === undefined || w1 === undefined || w2 === undefined || w3 === undefined || w4 === undefined || w5 === undefined) throw new Error('six workspaces');
    let wanted = new Set<ClusterName>([w0, w1, w2]);
    const changes = new Subject<void>();
    let found = -1;
    const scope: FleetScope = { wants: (c) => wanted.has(c), changes, found: (n) => (found = n) };
    const provider = narrowProvider(apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), exportName: fx.exportName, managementWatch: { backoff: { initialMs: 10, maxMs: 100 } } }), scope);
    if (provider === undefined) throw new Error('the APIExport provider cannot be narrowed');
    const fleet = createFleet(provider);
    const informers = createInformers({ backoff: { initialMs: 10, maxMs: 100 } });
    const engaged = new Set<string>();
    const everEngaged = new Set<string>();
    const reconciled = new Set<string>();
    const reasons = new Map<string, string>();
    const lookup = (key: ObjectKey): KubeObject | undefined => {
      const c = fleet.get(key.cluster);
      return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
    };
    const subs = [
      fleet.reports.subscribe((r) => {
        if (r.type === 'disengaged') reasons.set(r.cluster, r.reason);
      }),
      fleet.engagements.subscribe(({ cluster, lifetime }) => {
        engaged.add(cluster.name);
        everEngaged.add(cluster.name);
        lifetime.subscribe({ complete: () => engaged.delete(cluster.name) });
      }),
      fleetWatch(fleet, fx.widgets, { informers })
        .pipe(
          reconcile(
            (req) => {
              if (lookup(req.key) !== undefined) reconciled.add(`${req.cluster}/${req.key.name}`);
              return done();
            },
            { lookup, fleet },
          ),
        )
        .subscribe(),
    ];
    const widgetsOf = (ws: readonly ClusterName[]): string[] => ws.flatMap((n) => Array.from({ length: OBJECTS }, (_, j) => `${n}/w-${j}`));
    try {
      await eventually('the wanted workspaces engaged and their widgets reconciled', () => sorted(engaged).join() === sorted([w0, w1, w2]).join() && widgetsOf([w0, w1, w2]).every((k) => reconciled.has(k)));
      // Every workspace found (the run's discovery count), none of the others engaged, one wildcard watch.
      expect(found).toBe(WORKSPACES);
      expect(sorted(everEngaged)).toEqual(sorted([w0, w1, w2]));
      expect(widgetRequests()).toBe(1);

      // The scope moves: w1, w2 leave, w3..w5 come, w0 stays (so the shared watch keeps running).
      wanted = new Set([w0, w3, w4, w5]);
      changes.next();
      await eventually('the gained workspaces engaged with their widgets, the lost ones gone', () => sorted(engaged).join() === sorted([w0, w3, w4, w5]).join() && widgetsOf([w3, w4, w5]).every((k) => reconciled.has(k)));
      for (const lost of [w1, w2]) expect(`${lost}: ${reasons.get(lost) ?? 'not disengaged'}`).toBe(`${lost}: outside this subscriber's scope (owned by another replica)`);
      // Their objects had been dropped at ingest: they came from one relist of the shared watch.
      expect(widgetRequests()).toBe(2);
      expect(found).toBe(WORKSPACES);
    } finally {
      for (const s of subs) s.unsubscribe();
    }
  });
});
