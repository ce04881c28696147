// The APIExport provider leaks nothing: several start/stop cycles on the shared kcp (subscribe,
// engage two workspaces named by path through kcp's front door, watch through fleetWatch both from
// the shared wildcard watch and, namespaced, through each workspace's own client, read through
// each workspace's client, unsubscribe), after each of which the process's sockets and timers are
// back to the baseline taken before the first. Two measures: the handles that keep the event loop
// alive (`process.getActiveResourcesInfo()`: sockets in use, timers), and the process's
// established TCP connections to kcp read from /proc, which also counts the idle keep-alive
// sockets an agent nobody closed would keep (Node unrefs those, so the first measure misses them).
import { describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { E } from '../../src/fp/index.js';
import { clusterName, formatKey, objectKey } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { createFleet, fleetWatch } from '../../src/streams/index.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import { connectionsTo } from '../support/connections.js';
import { eventually } from '../support/wait.js';

const fastWatch = { backoff: { initialMs: 200, maxMs: 2_000 }, authBackoff: { initialMs: 500, maxMs: 2_000 } };
const kinds = ['TLSWrap', 'TCPSocketWrap', 'Timeout', 'connections'] as const;
type Counts = Record<(typeof kinds)[number], number>;

function count(port: number): Counts {
  const out: Counts = { TLSWrap: 0, TCPSocketWrap: 0, Timeout: 0, connections: connectionsTo(port) };
  for (const r of process.getActiveResourcesInfo()) if (r === 'TLSWrap' || r === 'TCPSocketWrap' || r === 'Timeout') out[r]++;
  return out;
}

const atMost = (now: Counts, limit: Counts): boolean => kinds.every((k) => now[k] <= limit[k]);
// Node 24 lists a TLS connection as TCPSocketWrap (older versions as TLSWrap): count both.
const sockets = (c: Counts): number => c.TLSWrap + c.TCPSocketWrap;


describe('apiExportProvider across start/stop cycles on a real kcp', () => {
  it('returns sockets and timers to baseline after each cycle of subscribe, engage, watch, read and unsubscribe', async () => {
    const kcp = sharedKcp();
    const port = Number(new URL(kcp.baseUrl).port);
    const fx = await setupApiExport(kcp.adminKubeconfigPath, { consumers: 2 });
    for (const ws of fx.consumers) {
      await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } });
    }
    // Let the set-up's own requests finish before taking the baseline.
    await eventually('a quiet baseline', () => (sockets(count(port)) === 0 && count(port).connections === 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 }).catch(() => true);
    const baseline = count(port);
    const figures: { cycle: number; peak: Counts; after: Counts }[] = [];

    for (let cycle = 1; cycle <= 3; cycle++) {
      const fleet = createFleet(apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), pathAware: true, managementWatch: fastWatch, exportName: fx.exportName }));
      const shared = new Set<string>();
      const own = new Set<string>();
      const subs: Subscription[] = [
        fleetWatch(fleet, fx.widgets).subscribe((ev) => {
          if (ev.type === 'applied') shared.add(formatKey(ev.key));
        }),
        fleetWatch(fleet, fx.widgets, { namespace: 'default' }).subscribe((ev) => {
          if (ev.type === 'applied') own.add(formatKey(ev.key));
        }),
      ];
      let peak: Counts;
      try {
        const keys = fx.consumers.map((ws) => formatKey(objectKey(clusterName(ws.path), 'default', 'w')));
        await eventually(`cycle ${cycle}: both workspaces by path, through both watches`, () => (keys.every((k) => shared.has(k) && own.has(k)) ? true : undefined), { timeoutMs: 60_000 });
        for (const ws of fx.consumers) {
          const read = await fleet.get(clusterName(ws.path))?.client.get(fx.widgets, 'w', { namespace: 'default' });
          expect(read !== undefined && E.isRight(read)).toBe(true);
        }
        peak = count(port);
      } finally {
        for (const s of subs) s.unsubscribe();
      }
      let after = count(port);
      await eventually(
        `cycle ${cycle}: sockets and timers back to baseline`,
        () => {
          after = count(port);
          return atMost(after, baseline) ? true : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      ).catch((e: unknown) => {
        throw new Error(`${e instanceof Error ? e.message : String(e)}: baseline ${JSON.stringify(baseline)}, peak ${JSON.stringify(peak)}, now ${JSON.stringify(after)}`);
      });
      figures.push({ cycle, peak, after });
      // The cycle did hold connections: the provider workspace, the endpoint, the front door, each workspace.
      expect(sockets(peak)).toBeGreaterThan(sockets(baseline));
      expect(peak.connections).toBeGreaterThan(baseline.connections);
    }
    console.log(JSON.stringify({ baseline, figures }));
  });
});
