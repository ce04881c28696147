// The per-object path of providers with one candidate per watched object (namespaces, kubeconfig
// Secrets): a watch folded by object, the desired set kept object by object, and the engine told
// only the names that changed. A change of one object among many recomputes one candidate and
// touches one cluster; a listing still diffs the whole set (a relist that lost objects removes them).
import { map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
// Narrow imports: the pieces under test, not the barrels around them.
import { clusterName } from '../../src/core/cluster.js';
import type { ConfigMap, KubeObject, Secret } from '../../src/core/object.js';
import { E } from '../../src/internal/fp.js';
import type { Candidate, DesiredChange } from '../../src/providers/internal/candidates.js';
import { desiredPerObject } from '../../src/providers/internal/desired-per-object.js';
import type { CapiCluster } from '../../src/providers/cluster-api/desired.js';
import { joinKubeconfigSecrets } from '../../src/providers/cluster-api/desired.js';
import type { EngageConfig } from '../../src/providers/internal/engage.js';
import { engageChanges } from '../../src/providers/internal/engage.js';
import type { ObjectChange } from '../../src/providers/internal/objects.js';
import { objectChanges, restateOn } from '../../src/providers/internal/objects.js';
import { reporting } from '../../src/providers/internal/report.js';
import type { WatchEvent } from '../../src/streams/events.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { cm, testScheduler } from './watch-fixtures.js';
import { describeEv, engineConfig } from './engine-fixtures.js';

const a1 = cm('a', '1');
const a2 = cm('a', '2');
const b1 = cm('b', '1');

const watch: Record<string, WatchEvent<ConfigMap>> = {
  s: { type: 'initStarted' },
  a: { type: 'initApply', object: a1 },
  b: { type: 'initApply', object: b1 },
  d: { type: 'initDone' },
  A: { type: 'applied', object: a2 },
  X: { type: 'deleted', object: b1 },
};

/** `listed a,b`, `set default/a@2`, `gone default/b`. */
const describeChange = (c: ObjectChange<ConfigMap>): string =>
  c.type === 'listed' ? `listed ${[...c.all.keys()].join(',')}` : c.type === 'set' ? `set ${c.id}@${c.object.metadata.resourceVersion ?? ''}` : `gone ${c.id}`;

describe('objectChanges', () => {
  it('should emit the whole set after each listing and one object per later change, nothing before the first listing or during a relist', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold<WatchEvent<ConfigMap>>('A-sab-d-A-X-s-A-a-d', watch);
      expectObservable(events.pipe(objectChanges(), map(describeChange))).toBe('------a-b-c-------d', {
        a: 'listed default/a,default/b',
        b: 'set default/a@2',
        c: 'gone default/b',
        d: 'listed default/a',
      });
    });
  });

  it('should restate the whole set at each tick once listed (restateOn), passing changes through', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const events = cold<WatchEvent<ConfigMap>>('sab-d-A-X', watch);
      const ticks = hot('--t----t---t');
      expectObservable(events.pipe(objectChanges(), restateOn(ticks), map(describeChange))).toBe('----a-bcd--e', {
        a: 'listed default/a,default/b',
        b: 'set default/a@2',
        c: 'listed default/a,default/b',
        d: 'gone default/b',
        e: 'listed default/a',
      });
    });
  });
});

/** A candidate per ConfigMap, named after its `cluster` label (absent: no cluster), fingerprinted by its resourceVersion. */
function candidateOf(o: ConfigMap): Candidate | undefined {
  const name = o.metadata.labels?.cluster;
  if (name === undefined) return undefined;
  const fingerprint = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}@${o.metadata.resourceVersion ?? ''}`;
  return { name: clusterName(name), fingerprint, build: () => E.right(fakeCluster(name)) };
}

const labelled = (name: string, rv: string, cluster?: string): ConfigMap => cm(name, rv, 'default', cluster === undefined ? undefined : { cluster });

/** `all east=default/a@1`, `some +east=… -west`. */
const describeDesired = (d: DesiredChange): string => {
  const show = (c: Candidate): string => `${c.name}=${c.fingerprint}`;
  if (d.type === 'all') return `all ${[...d.desired.values()].map(show).join(' ')}`;
  return `some ${[...d.set.map((c) => `+${show(c)}`), ...d.removed.map((n) => `-${n}`)].join(' ')}`;
};

describe('desiredPerObject', () => {
  it('should send the whole set after a listing, then only the names an object change touched', () => {
    const changes: ObjectChange<ConfigMap>[] = [
      { type: 'listed', all: new Map([['default/a', labelled('a', '1', 'east')], ['default/b', labelled('b', '1', 'west')], ['default/c', labelled('c', '1')]]) },
      { type: 'set', id: 'default/a', object: labelled('a', '2', 'east') },
      { type: 'set', id: 'default/b', object: labelled('b', '2', 'north') },
      { type: 'set', id: 'default/c', object: labelled('c', '2') },
      { type: 'gone', id: 'default/a' },
    ];
    const out: string[] = [];
    of(...changes)
      .pipe(desiredPerObject(candidateOf))
      .subscribe((d) => out.push(describeDesired(d)));
    expect(out).toEqual([
      'all east=default/a@1 west=default/b@1',
      'some +east=default/a@2',
      'some +north=default/b@2 -west',
      // c wants no cluster before or after: nothing is sent.
      'some -east',
    ]);
  });

  it('should let the latest claim of a name win, and an earlier claimant take over when it goes', () => {
    const changes: ObjectChange<ConfigMap>[] = [
      { type: 'listed', all: new Map([['default/a', labelled('a', '1', 'east')]]) },
      { type: 'set', id: 'default/b', object: labelled('b', '1', 'east') },
      { type: 'gone', id: 'default/b' },
      { type: 'set', id: 'default/a', object: labelled('a', '2') },
    ];
    const out: string[] = [];
    of(...changes)
      .pipe(desiredPerObject(candidateOf))
      .subscribe((d) => out.push(describeDesired(d)));
    expect(out).toEqual(['all east=default/a@1', 'some +east=default/b@1', 'some +east=default/a@1', 'some -east']);
  });

  it('should compute one candidate per changed object, not one per object, after the listing', () => {
    let made = 0;
    const counted = (o: ConfigMap): Candidate | undefined => {
      made += 1;
      return candidateOf(o);
    };
    const all = new Map(Array.from({ length: 1000 }, (_, i) => [`default/o${i}`, labelled(`o${i}`, '1', `c${i}`)] as const));
    const out: DesiredChange[] = [];
    of<ObjectChange<ConfigMap>[]>({ type: 'listed', all }, { type: 'set', id: 'default/o7', object: labelled('o7', '2', 'c7') }, { type: 'gone', id: 'default/o8' })
      .pipe(desiredPerObject(counted))
      .subscribe((d) => out.push(d));
    expect(made).toBe(1001);
    expect(out.slice(1).map(describeDesired)).toEqual(['some +c7=default/o7@2', 'some -c8']);
  });
});

describe('joinKubeconfigSecrets (cluster-api)', () => {
  it('should join once both watches listed, then send only the Cluster a Cluster or its kubeconfig Secret change touches', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const capi = (name: string, rv: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: rv } });
      const secret = (name: string, rv: string): Secret => ({ metadata: { namespace: 'ns', name, resourceVersion: rv } });
      const clusters = hot<ObjectChange<KubeObject>>('-a------g', {
        a: { type: 'listed', all: new Map([['ns/a', capi('a', '1')], ['ns/b', capi('b', '1')]]) },
        g: { type: 'gone', id: 'ns/b' },
      });
      const secrets = hot<ObjectChange<Secret>>('s--k-o-x', {
        // a change before both listings is folded into the join, not sent.
        s: { type: 'set', id: 'ns/early', object: secret('early', '1') },
        k: { type: 'listed', all: new Map([['ns/a-kubeconfig', secret('a-kubeconfig', '1')]]) },
        o: { type: 'set', id: 'ns/other', object: secret('other', '1') },
        x: { type: 'set', id: 'ns/b-kubeconfig', object: secret('b-kubeconfig', '2') },
      });
      const show = (c: ObjectChange<CapiCluster>): string =>
        c.type === 'listed'
          ? `listed ${[...c.all].map(([id, j]) => `${id}+${j.kubeconfig?.metadata.resourceVersion ?? 'none'}`).join(',')}`
          : c.type === 'set'
            ? `set ${c.id}+${c.object.kubeconfig?.metadata.resourceVersion ?? 'none'}`
            : `gone ${c.id}`;
      // 3: both listed. 5: a Secret of no Cluster: nothing. 7: b's Secret → b. 8: b gone.
      expectObservable(joinKubeconfigSecrets(clusters, secrets).pipe(map(show))).toBe('---l---bg', {
        l: 'listed ns/a+1,ns/b+none',
        b: 'set ns/b+2',
        g: 'gone ns/b',
      });
    });
  });
});

const config = (scheduler: EngageConfig['scheduler']): EngageConfig => engineConfig(scheduler);

const cand = (name: string, fingerprint: string): Candidate => ({ name: clusterName(name), fingerprint, build: () => E.right(fakeCluster(name)) });

describe('engageChanges', () => {
  it('should engage, re-engage and disengage only the names of a `some` change, and end the first pass with the first change', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot<DesiredChange>('-a 9ms b 9ms c', {
        a: { type: 'all', desired: new Map([[clusterName('east'), cand('east', '1')], [clusterName('west'), cand('west', '1')]]) },
        // east unchanged: nothing happens to it.
        b: { type: 'some', set: [cand('east', '1'), cand('north', '1')], removed: [] },
        // a name never desired is ignored.
        c: { type: 'some', set: [cand('west', '2')], removed: [clusterName('east'), clusterName('nowhere')] },
      });
      const cfg = config(ts);
      const events = reporting(cfg, (say) => source.pipe(engageChanges(cfg, say)));
      expectObservable(events.pipe(map(describeEv))).toBe('-(abcde) 3ms (fg) 6ms (hijklm)', {
        a: '+east',
        b: '!engaged east',
        c: '+west',
        d: '!engaged west',
        e: '!discovered 2/2',
        f: '+north',
        g: '!engaged north',
        h: '-east (gone)',
        i: '!disengaged east: gone',
        j: '-west (credentials or server changed)',
        k: '!disengaged west: credentials or server changed',
        l: '+west',
        m: '!reengaged west: credentials or server changed',
      });
    });
  });

  it('should take a first `some` change as the first discovery pass', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot<DesiredChange>('-a', { a: { type: 'some', set: [cand('east', '1')], removed: [] } });
      const cfg = config(ts);
      expectObservable(reporting(cfg, (say) => source.pipe(engageChanges(cfg, say))).pipe(map(describeEv))).toBe('-(abc)', { a: '+east', b: '!engaged east', c: '!discovered 1/1' });
    });
  });
});
