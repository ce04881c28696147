// Polling providers in virtual time: kind is asked on schedule (a stand-in runner), clusters
// appear, change and vanish; a failing `kind get clusters` disengages nothing. The programmatic
// set follows add and remove.
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { FleetEvent } from '../../src/index.js';
import { E } from '../../src/index.js';
import { clusters } from '../../src/providers/clusters/index.js';
import type { KindRunner, ProviderReport } from '../../src/providers/kind/index.js';
import { kind } from '../../src/providers/kind/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { testScheduler } from './watch-fixtures.js';

const show = (ev: FleetEvent): string => (ev.type === 'engaged' ? `+${ev.cluster.name}` : `-${ev.name} (${ev.reason ?? ''})`);

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

describe('kind (stand-in runner, virtual time)', () => {
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
      const reports: ProviderReport[] = [];
      const provider = kind({ prefix: 'fleet-', interval: 10, run, scheduler: ts, probe: false, report: (r) => reports.push(r) });
      expectObservable(provider.pipe(map(show)), '^ 40ms !').toBe('-a---------b---------(cd)------e', {
        a: '+fleet-a',
        b: '+fleet-b',
        c: '-fleet-a (credentials or server changed)',
        d: '+fleet-a',
        e: '-fleet-a (no longer listed by kind)',
      });
      ts.flush();
      expect(calls.filter((c) => c.endsWith('get clusters')).map((c) => Number(c.split(' ')[0]))).toEqual([0, 10, 20, 30, 40]);
      expect(calls.some((c) => c.includes('other'))).toBe(false);
      expect(reports.map((r) => r.type)).toContain('reengaged');
    });
  });

  it('should report a failing `kind get clusters` and change nothing', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      let poll = 0;
      const run: KindRunner = (args) =>
        args[1] === 'clusters'
          ? cold('(r|)', { r: poll++ === 1 ? E.left('kind get clusters exited with code 1: docker not running') : E.right('a\n') })
          : cold('(r|)', { r: E.right(kubeconfig(1)) });
      const reports: string[] = [];
      const provider = kind({ interval: 10, run, scheduler: ts, probe: false, report: (r) => reports.push(`${r.at} ${r.type} ${'reason' in r ? r.reason : ''}`) });
      expectObservable(provider.pipe(map(show)), '^ 25ms !').toBe('a', { a: '+a' });
      ts.flush();
      expect(reports).toEqual(['0 engaged ', '10 error kind get clusters exited with code 1: docker not running']);
    });
  });

  it('should time out a hung kind call and skip only that cluster', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const run: KindRunner = (args) =>
        args[1] === 'clusters' ? cold('(r|)', { r: E.right('hung\nok\n') }) : args[3] === 'hung' ? cold('-') : cold('(r|)', { r: E.right(kubeconfig(1)) });
      const reports: string[] = [];
      const provider = kind({ interval: 100, commandTimeout: 5, run, scheduler: ts, probe: false, report: (r) => reports.push(`${r.at} ${r.type} ${'reason' in r ? r.reason : ''}`) });
      expectObservable(provider.pipe(map(show)), '^ 20ms !').toBe('-----a', { a: '+ok' });
      ts.flush();
      expect(reports[0]).toBe('5 skipped kind get kubeconfig --name hung gave no answer within 5 ms');
    });
  });
});

describe('clusters (programmatic set)', () => {
  it('should engage the initial set on subscribe, follow add and remove, and replace a re-added name', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const east = fakeCluster('east');
      const east2 = fakeCluster('east');
      const set = clusters([east]);
      ts.schedule(() => {
        set.add(fakeCluster('west'));
      }, 2);
      ts.schedule(() => {
        set.add(east2);
      }, 4);
      ts.schedule(() => {
        set.remove('west');
      }, 9);
      expectObservable(set.pipe(map(show)), '^ 10ms !').toBe('a-b-(cd)-e', {
        a: '+east',
        b: '+west',
        c: '-east (credentials or server changed)',
        d: '+east',
        e: '-west (removed from the set)',
      });
    });
  });
});
