// A run whose requests a cluster refuses (403, 401) reports that cluster unhealthy on its health
// (what /readyz serves) and in `rxfleet_reconcile_denied_keys` while the refused keys wait their
// slow backoff; a grant given at run time clears both when the keys get through, with no change
// to any object. The real kube-apiserver version: test/integration/runtime-denied.test.ts.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fromStatus } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, ConfigMap, RunHandle } from '../../src/index.js';
import { actionOf, clusterName, configMaps, controller, run } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { deniedKeys } from '../../src/runtime/denied-keys.js';
import { inMemoryFleet } from '../../src/testing/index.js';
import { eventually } from '../support/wait.js';

const east = clusterName('east');
const west = clusterName('west');
const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
const refusal = (code: 401 | 403) =>
  fromStatus(east, code, { kind: 'Status', code, reason: code === 403 ? 'Forbidden' : 'Unauthorized', message: 'configmaps "copy" is forbidden: User "limited" cannot patch resource "configmaps"' });

const deniedSeries = async (h: RunHandle): Promise<string[]> => (await h.metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('rxfleet_reconcile_denied_keys{'));
const stateOf = (h: RunHandle, c: ClusterName) => h.health.report().clusters.find((x) => x.cluster === c);

describe('a run whose requests a cluster refuses', () => {
  it('reports the refusing cluster unhealthy, with the reason, and counts its keys, until the grant lets them through', async () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('a')], west: [cm('b'), cm('c')] } });
    let granted = false;
    // West's keys write to east (a fan-out): east refuses them until granted.
    const c = controller({
      name: 'copier',
      provider: fleet.provider,
      resource: configMaps,
      queue: { authBackoff: { initialMs: 20, maxMs: 40, jitter: 0 } },
      reconcile: (req) => actionOf(req.cluster === west && !granted ? E.left(refusal(403)) : E.right(undefined)),
    });
    const handle = await run(c, { http: false, signals: false, logger: pino({ level: 'silent' }) });
    try {
      const refused = await eventually('east reported unhealthy for the refusals', () => {
        const h = stateOf(handle, east);
        return h?.state === 'unhealthy' && h;
      }, { timeoutMs: 4_000 });
      expect(refused.reason).toMatch(/^controller "copier": requests refused \(403 Forbidden\).*User "limited" cannot patch/);
      expect(stateOf(handle, west)?.state).toBe('synced');
      expect(await deniedSeries(handle)).toEqual(['rxfleet_reconcile_denied_keys{cluster="east",controller="copier"} 2']);

      granted = true;
      await eventually('east synced again', () => stateOf(handle, east)?.state === 'synced', { timeoutMs: 4_000 });
      expect(handle.health.report().ready).toBe(true);
      expect(await deniedSeries(handle)).toEqual([]);
    } finally {
      await handle.stop();
    }
  });
});

describe('deniedKeys', () => {
  const outcome = (key: string, result: Outcome['result'], error?: unknown): Outcome => {
    const [cluster = '', name = ''] = key.split('/');
    return { key: { cluster: clusterName(cluster), namespace: 'default', name }, cluster: clusterName(cluster), result, attempt: 1, startedAt: 0, durationMs: 0, error, retryAfterMs: result === 'error' ? 5_000 : undefined };
  };

  it('counts a key once per cluster it was refused in, and lets it go on its next other outcome or when its cluster leaves', () => {
    const seen: string[] = [];
    const d = deniedKeys((cluster, keys, reason) => seen.push(`${cluster} ${keys} ${reason === undefined ? '-' : '!'}`));
    d.outcome(outcome('west/b', 'error', refusal(403)));
    d.outcome(outcome('west/b', 'error', refusal(403))); // the same key again
    d.outcome(outcome('west/c', 'error', refusal(401)));
    d.outcome(outcome('west/b', 'error', new Error('boom'))); // another failure: no longer refused
    d.outcome(outcome('west/d', 'terminal', refusal(403))); // not retried: not waiting
    d.clusterRemoved(west); // west/c is dropped by the queue
    d.clusterRemoved(west);
    expect(seen).toEqual(['east 1 !', 'east 1 !', 'east 2 !', 'east 1 !', 'east 0 -']);
  });
});
