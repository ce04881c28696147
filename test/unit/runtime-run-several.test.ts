// Several controllers in one run (controller-runtime's manager): one provider subscription, one
// fleet and one set of watches, a work queue and reconcile metrics per controller, one /metrics
// where every family appears once. Injected watch sources stand in for the API server.
import { pino } from 'pino';
import { defer, filter, finalize, firstValueFrom, NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject, ObjectKey, ResourceDescriptor, Secret } from '../../src/index.js';
import { ConfigError, configMaps, controller, done, run, secrets } from '../../src/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';

const quiet = pino({ level: 'silent' });

/** Every cluster lists one object named after the resource, then watches quietly. */
const sourceFor = <T extends KubeObject>(_c: { name: string }, r: ResourceDescriptor<T>): ListerWatcher<T> => ({
  list: () => of(E.right({ metadata: { resourceVersion: '1' }, items: [{ apiVersion: 'v1', kind: r.kind, metadata: { name: `one-${r.plural}`, namespace: 'default', uid: `u-${r.plural}`, resourceVersion: '1' } } as unknown as T] })),
  watch: () => NEVER,
});
const watchConfig = { streamingList: false, listerWatcherFor: sourceFor };

describe('run with several controllers', () => {
  it('should subscribe the provider once, reconcile each controller its own keys, and serve one /metrics with each family once', async () => {
    let subscriptions = 0;
    let released = 0;
    const counting = defer(() => {
      subscriptions++;
      return staticProvider([fakeCluster('east'), fakeCluster('west')]);
    }).pipe(
      finalize(() => {
        released++;
      }),
    );
    const seen: Record<string, string[]> = { maps: [], creds: [] };
    let all: () => void = () => undefined;
    const allSeen = new Promise<void>((r) => (all = r));
    const note = (who: string) => (req: { readonly key: ObjectKey }) => {
      seen[who]?.push(`${req.key.cluster}/${req.key.name}`);
      if ((seen.maps?.length ?? 0) >= 2 && (seen.creds?.length ?? 0) >= 2) all();
      return done();
    };
    const maps = controller<ConfigMap>({ name: 'maps', provider: counting, resource: configMaps, reconcile: note('maps'), watchOptions: watchConfig });
    const creds = controller<Secret>({ name: 'creds', provider: counting, resource: secrets, reconcile: note('creds'), watchOptions: watchConfig });
    const handle = await run([maps, creds], { name: 'pair', logger: quiet, signals: false, http: { port: 0 } });
    await firstValueFrom(handle.health.changes.pipe(filter((r) => r.ready)));
    await allSeen;
    expect(subscriptions).toBe(1);
    expect(seen.maps?.sort()).toEqual(['east/one-configmaps', 'west/one-configmaps']);
    expect(seen.creds?.sort()).toEqual(['east/one-secrets', 'west/one-secrets']);
    expect(handle.name).toBe('pair');

    const text = await (await fetch(`${handle.url ?? ''}/metrics`)).text();
    // Each family once (Prometheus refuses a second HELP or TYPE line for a name).
    const helps = text.split('\n').filter((l) => l.startsWith('# HELP '));
    expect(new Set(helps).size).toBe(helps.length);
    expect(text).toContain('rxfleet_reconcile_total{cluster="east",result="done",controller="maps"} 1');
    expect(text).toContain('rxfleet_reconcile_total{cluster="west",result="done",controller="creds"} 1');
    // The fleet's series under the run's name, once, and no controller claims engaged clusters.
    expect(text).toContain('rxfleet_engaged_clusters{controller="pair"} 2');
    expect(text.match(/^rxfleet_engaged_clusters/gm)).toHaveLength(1);
    expect(text).toContain('rxfleet_watch_synced{cluster="east",resource="secrets",controller="pair"} 1');
    expect(text).toMatch(/^process_cpu_user_seconds_total\{controller="pair"\}/m);

    const result = await handle.stop();
    expect(result.reason).toBe('clean');
    expect(released).toBe(1);
  });

  it('should refuse controllers that name different providers, repeat a name, or none at all', async () => {
    const a = controller<ConfigMap>({ name: 'a', provider: staticProvider([fakeCluster('east')]), resource: configMaps, reconcile: () => done(), watchOptions: watchConfig });
    const b = controller<ConfigMap>({ name: 'b', provider: staticProvider([fakeCluster('east')]), resource: configMaps, reconcile: () => done(), watchOptions: watchConfig });
    const a2 = controller<ConfigMap>({ ...a, reconcile: () => done() });
    const opts = { logger: quiet, signals: false, http: false } as const;
    await expect(run([a, b], opts)).rejects.toThrow(ConfigError);
    await expect(run([a, b], opts)).rejects.toThrow(/"a" and "b" name different providers.*same Provider object/);
    await expect(run([a, a2], opts)).rejects.toThrow(/two controllers are named "a"/);
    await expect(run([], opts)).rejects.toThrow(/no controller given/);
    const c = controller<ConfigMap>({ name: 'c', provider: a.provider, resource: configMaps, reconcile: () => done(), watchOptions: { ...watchConfig, pageSize: 10 } });
    await expect(run([a, c], opts)).rejects.toThrow(/different watchOptions/);
  });
});
