// Polling providers in virtual time: kind is asked on schedule (a stand-in runner), clusters
// appear, change and vanish; a failing `kind get clusters` disengages nothing and is reported once
// while it lasts. The programmatic set follows add and remove. Reports are read from the stream.
import type { Observable } from 'rxjs';
import { filter, map, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { E } from '../../src/internal/fp.js';
import { clusterListProvider } from '../../src/providers/clusters/index.js';
import type { KindRunner } from '../../src/providers/kind/index.js';
import { kindProvider } from '../../src/providers/kind/index.js';
import { singleClusterProvider } from '../../src/providers/single/index.js';
import type { FleetEvent } from '../../src/streams/cluster.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { testScheduler } from './watch-fixtures.js';

const show = (ev: FleetEvent): string => {
  if (ev.type === 'engaged') return `+${ev.cluster.name}`;
  if (ev.type === 'disengaged') return `-${ev.cluster} (${ev.reason ?? ''})`;
  const r = ev.report;
  if (r.type === 'discovered') return `!discovered ${r.clusters}/${r.candidates}`;
  return `!${r.type} ${'cluster' in r ? r.cluster : 'candidate' in r ? r.candidate : ''}${'reason' in r ? `: ${r.reason}` : ''}`;
};
const lifecycle = (ev: FleetEvent): boolean => ev.type !== 'report';

function kubeconfig(port: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'k', cluster: { server: `https://127.0.0.1:${port}` } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'k', context: { cluster: 'k', user: 'u' } }],
    'current-context': 'k',
  });
}

describe('kindProvider (stand-in runner, virtual time)', () => {
  it('should poll on schedule, keep clusters with the prefix, re-engage a recreated cluster and disengage a deleted one', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      // What `kind` answers at each poll (every 10 frames): listing, then kubeconfigs.
      const listings = ['fleet-a\nother\n', 'fleet-a\nfleet-b\n', 'fleet-a\nfleet-b\n', 'fleet-b\n'];
      const ports: Record<string, number[]> = { 'fleet-a': [1, 1, 2], 'fleet-b': [3, 3, 3] };
      const calls: string[] = [];
      let poll = 0;
      const seen: Record<string, number> = {};
      const run: KindRunner = (args): Observable<E.Either<string, string>> => {
        calls.push(`${ts.now()} ${args.join(' ')}`);
        if (args[1] === 'clusters') return cold('-(r|)', { r: E.right(listings[Math.min(poll++, listings.length - 1)] ?? '') });
        const name = args[3] ?? '';
        const i = seen[name] ?? 0;
        seen[name] = i + 1;
        return cold('(r|)', { r: E.right(kubeconfig(ports[name]?.[i] ?? 9)) });
      };
      const identities: unknown[] = [];
      const provider = kindProvider({ prefix: 'fleet-', intervalMs: 10, run, scheduler: ts, probe: false }).pipe(
        tap((ev) => ev.type === 'engaged' && identities.push(ev.cluster.identity)),
      );
      expectObservable(provider.pipe(map(show)), '^ 40ms !').toBe('-(aAP)-----(bB)------(cCdD)----(eE)', {
        a: '+fleet-a',
        A: '!engaged fleet-a',
        P: '!discovered 1/1',
        b: '+fleet-b',
        B: '!engaged fleet-b',
        c: '-fleet-a (credentials or server changed)',
        C: '!disengaged fleet-a: credentials or server changed',
        d: '+fleet-a',
        D: '!reengaged fleet-a: credentials or server changed',
        e: '-fleet-a (no longer listed by kind)',
        E: '!disengaged fleet-a: no longer listed by kind',
      });
      ts.flush();
      expect(calls.filter((c) => c.endsWith('get clusters')).map((c) => Number(c.split(' ')[0]))).toEqual([0, 10, 20, 30, 40]);
      expect(identities).toEqual([
        { provider: 'kind', from: 'kind cluster fleet-a' },
        { provider: 'kind', from: 'kind cluster fleet-b' },
        { provider: 'kind', from: 'kind cluster fleet-a' },
      ]);
      expect(calls.some((c) => c.includes('other'))).toBe(false);
    });
  });

  it('should report a failing `kind get clusters` once while it keeps failing, and change nothing', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      let poll = 0;
      const failing = E.left('kind get clusters exited with code 1: docker not running');
      // Polls at 0 (ok), 10 and 20 (failing), 30 (ok), 40 (failing again).
      const run: KindRunner = (args) => {
        if (args[1] !== 'clusters') return cold('(r|)', { r: E.right(kubeconfig(1)) });
        const n = poll++;
        return cold('(r|)', { r: n === 1 || n === 2 || n === 4 ? failing : E.right('a\n') });
      };
      const provider = kindProvider({ intervalMs: 10, run, scheduler: ts, probe: false });
      expectObservable(provider.pipe(map(show)), '^ 45ms !').toBe('(aAP) 5ms e 29ms e', {
        a: '+a',
        A: '!engaged a',
        P: '!discovered 1/1',
        e: '!error : kind get clusters exited with code 1: docker not running',
      });
    });
  });

  it('should time out a hung kind call and skip only that cluster, naming the command', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const run: KindRunner = (args) =>
        args[1] === 'clusters' ? cold('(r|)', { r: E.right('hung\nok\n') }) : args[3] === 'hung' ? cold('-') : cold('(r|)', { r: E.right(kubeconfig(1)) });
      const provider = kindProvider({ intervalMs: 100, commandTimeoutMs: 5, run, scheduler: ts, probe: false });
      expectObservable(provider.pipe(map(show)), '^ 20ms !').toBe('-----(sOoP)', {
        s: '!skipped hung: kind get kubeconfig --name hung gave no answer within 5 ms',
        O: '+ok',
        o: '!engaged ok',
        P: '!discovered 1/2',
      });
    });
  });

  it('should refuse options that can never work with a ConfigError', () => {
    expect(() => kindProvider({ intervalMs: 0 })).toThrow(ConfigError);
    expect(() => kindProvider({ commandTimeoutMs: -1 })).toThrow(/kind provider: `commandTimeoutMs` must be a positive number of milliseconds, got -1/);
    expect(() => kindProvider({ command: '' })).toThrow(ConfigError);
    expect(() => kindProvider({ retryIntervalMs: Number.NaN })).toThrow(ConfigError);
  });
});

describe('clusterListProvider (programmatic set)', () => {
  it('should engage the initial set on subscribe, follow add and remove, and replace a re-added name', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const east = fakeCluster('east');
      const east2 = fakeCluster('east');
      const set = clusterListProvider([east], { scheduler: ts });
      ts.schedule(() => {
        set.add(fakeCluster('west'));
      }, 2);
      ts.schedule(() => {
        set.add(east2);
      }, 4);
      ts.schedule(() => {
        set.remove('west');
      }, 9);
      expectObservable(set.pipe(filter(lifecycle), map(show)), '^ 10ms !').toBe('a-b-(cd)-e', {
        a: '+east',
        b: '+west',
        c: '-east (credentials or server changed)',
        d: '+east',
        e: '-west (removed from the set)',
      });
    });
  });

  it('should give each cluster an identity and the entry’s labels, keep a given identity, and re-engage on a label change', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const given = { ...fakeCluster('given'), identity: { provider: 'mine', from: 'my registry' } };
      const set = clusterListProvider([fakeCluster('plain'), given, { name: 'kc', kubeconfig: { yaml: kubeconfig(1) }, labels: { region: 'eu' } }], { scheduler: ts });
      ts.schedule(() => {
        set.add({ name: 'kc', kubeconfig: { yaml: kubeconfig(1) }, labels: { region: 'us' } });
      }, 7);
      const facts = (ev: FleetEvent): string =>
        ev.type === 'engaged' ? `${ev.cluster.name} ${ev.cluster.identity?.provider ?? '?'}: ${ev.cluster.identity?.from ?? '?'} ${JSON.stringify(ev.cluster.labels ?? {})}` : show(ev);
      expectObservable(set.pipe(filter(lifecycle), map(facts)), '^ 10ms !').toBe('(pgk)--(dK)', {
        p: 'plain clusters: Cluster given in code {}',
        g: 'given mine: my registry {}',
        k: 'kc clusters: kubeconfig text given in code {"region":"eu"}',
        d: '-kc (labels or identity changed)',
        K: 'kc clusters: kubeconfig text given in code {"region":"us"}',
      });
    });
  });

  it('should name the provider `single` in identities and reports, and refuse duplicate or empty names', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const out = singleClusterProvider({ name: 'local', kubeconfig: { yaml: kubeconfig(1), context: 'k' } }, { scheduler: ts });
      expectObservable(out.pipe(map((ev) => (ev.type === 'engaged' ? ev.cluster.identity : ev.type === 'report' ? ev.report : ev)))).toBe('(arp)', {
        a: { provider: 'single', from: 'context "k" of kubeconfig text given in code' },
        r: { type: 'engaged', provider: 'single', cluster: 'local', at: 0 },
        p: { type: 'discovered', provider: 'single', clusters: 1, candidates: 1, at: 0 },
      });
    });
    expect(() => clusterListProvider([fakeCluster('east'), fakeCluster('east')])).toThrow(/clusters provider: two entries are named "east"/);
    expect(() => singleClusterProvider({ name: '', kubeconfig: { yaml: '' } })).toThrow(ConfigError);
  });

  it('should report a kubeconfig entry that does not load as skipped, naming where it came from', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const set = clusterListProvider([{ name: 'broken', kubeconfig: { file: '/nowhere/broken.kubeconfig' } }], { scheduler: ts });
      expectObservable(set.pipe(map(show))).toBe('(sp)', { s: '!skipped broken: kubeconfig broken.kubeconfig: invalid kubeconfig /nowhere/broken.kubeconfig: file not found', p: '!discovered 0/1' });
    });
  });
});
