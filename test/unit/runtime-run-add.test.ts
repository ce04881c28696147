// Controllers that join and leave a running run (RunHandle.add, remove): the others keep their
// caches (no second list), the probe server stays, the one removed drains and its watches and
// series go, the one added gets its keys; one that cannot join is refused before anything starts.
// Injected watch sources stand in for the API server.
import { pino } from 'pino';
import { filter, firstValueFrom, NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject, ObjectKey, ResourceDescriptor, Secret } from '../../src/index.js';
import { ConfigError, configMaps, controller, done, run, secrets } from '../../src/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { eventually } from '../support/wait.js';

const quiet = pino({ level: 'silent' });

describe('RunHandle.add and remove', () => {
  it('should start and stop one controller while the others keep their caches, the server and their series', async () => {
    const lists: Record<string, number> = {};
    const sourceFor = <T extends KubeObject>(_c: { name: string }, r: ResourceDescriptor<T>): ListerWatcher<T> => ({
      list: () => {
        lists[r.plural] = (lists[r.plural] ?? 0) + 1;
        return of(E.right({ metadata: { resourceVersion: '1' }, items: [{ apiVersion: 'v1', kind: r.kind, metadata: { name: `one-${r.plural}`, namespace: 'default', uid: `u-${r.plural}`, resourceVersion: '1' } } as unknown as T] }));
      },
      watch: () => NEVER,
    });
    const watchOptions = { streamingList: false, listerWatcherFor: sourceFor };
    const provider = staticProvider([fakeCluster('east')]);
    const seen: string[] = [];
    const note = (who: string) => (req: { readonly key: ObjectKey }) => {
      seen.push(`${who}:${req.key.name}`);
      return done();
    };
    const maps = controller<ConfigMap>({ name: 'maps', provider, resource: configMaps, reconcile: note('maps'), watchOptions });
    const creds = controller<Secret>({ name: 'creds', provider, resource: secrets, reconcile: note('creds'), watchOptions });
    const handle = await run([maps, creds], { name: 'pair', logger: quiet, signals: false, http: { port: 0 } });
    await firstValueFrom(handle.health.changes.pipe(filter((r) => r.ready)));
    await eventually('both controllers reconciled their object', () => seen.includes('creds:one-secrets') && seen.includes('maps:one-configmaps'));
    const url = handle.url;
    const mapsLists = lists.configmaps;

    await handle.remove(['creds']);
    const metrics = async (): Promise<string> => (await fetch(`${url ?? ''}/metrics`)).text();
    expect(await metrics()).not.toContain('controller="creds"');
    const again = controller<Secret>({ name: 'creds-2', fieldManager: 'creds', provider, resource: secrets, reconcile: note('creds-2'), watchOptions });
    handle.add([again]);
    await eventually('the added controller reconciled its object', () => seen.includes('creds-2:one-secrets'));
    await firstValueFrom(handle.health.changes.pipe(filter((r) => r.ready)));
    // The other controller's cache was never listed again; the server is where it was.
    expect(lists.configmaps).toBe(mapsLists);
    expect(handle.url).toBe(url);
    const text = await metrics();
    expect(text).toContain('rxfleet_reconcile_total{cluster="east",result="done",controller="maps"} 1');
    expect(text).toContain('rxfleet_reconcile_total{cluster="east",result="done",controller="creds-2"} 1');

    // One that names another provider is refused, and nothing joins.
    const stranger = controller<ConfigMap>({ name: 'stranger', provider: staticProvider([fakeCluster('east')]), resource: configMaps, reconcile: () => done(), watchOptions });
    expect(() => {
      handle.add([stranger]);
    }).toThrow(ConfigError);
    expect(() => {
      handle.add([controller<ConfigMap>({ name: 'maps', provider, resource: configMaps, reconcile: () => done(), watchOptions })]);
    }).toThrow(/"maps" already runs/);
    expect((await handle.stop()).reason).toBe('clean');
  });
});
