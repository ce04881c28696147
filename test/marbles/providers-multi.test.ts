// Composition in virtual time: multi merges named providers under `<provider>#<cluster>`, follows
// add and remove, disengages exactly the clusters of a removed provider, and passes the providers'
// reports through with the same names; withPrefix renames (the client too) and keeps identity and labels.
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { clusterName } from '../../src/core/cluster.js';
import { multiProvider, withPrefix } from '../../src/providers/multi/index.js';
import type { Cluster, FleetEvent } from '../../src/streams/cluster.js';
import { disengaged, engaged, reported } from '../../src/streams/cluster.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { testScheduler } from './watch-fixtures.js';

const show = (ev: FleetEvent): string => {
  if (ev.type === 'engaged') return `+${ev.cluster.name}`;
  if (ev.type === 'disengaged') return `-${ev.cluster}`;
  const r = ev.report;
  if (r.type === 'discovered') return `!discovered ${r.clusters}/${r.candidates} (${r.provider} @${r.at})`;
  return `!${r.type} ${'cluster' in r ? r.cluster : 'candidate' in r ? r.candidate : ''}${'reason' in r ? `: ${r.reason}` : ''} (${r.provider} @${r.at})`;
};

describe('withPrefix', () => {
  it('should prefix engaged and disengaged names, name the client after the new name, and keep identity, labels and cache', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const cache = { view: () => undefined };
      const east: Cluster = { ...fakeCluster('east', { region: 'eu' }), identity: { provider: 'kind', from: 'kind cluster east' }, cache };
      const src = cold<FleetEvent>('a-b', { a: engaged(east), b: disengaged(clusterName('east'), 'why') });
      const out = withPrefix('prod#', src);
      expectObservable(out.pipe(map(show))).toBe('a-b', { a: '+prod#east', b: '-prod#east' });
      expectObservable(
        out.pipe(map((ev) => (ev.type === 'engaged' ? [ev.cluster.client.cluster, ev.cluster.identity, ev.cluster.labels, ev.cluster.cache === cache] : ev.type === 'disengaged' ? ev.reason : ''))),
      ).toBe('a-b', { a: ['prod#east', { provider: 'kind', from: 'kind cluster east' }, { region: 'eu' }, true], b: 'why' });
    });
  });

  it('should prefix the cluster or candidate a report names, and leave management and provider errors alone', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const east = clusterName('east');
      const src = cold<FleetEvent>('abcde', {
        a: reported({ type: 'engaged', provider: 'kind', cluster: east, at: 0 }),
        b: reported({ type: 'waiting', provider: 'kind', cluster: east, reason: 'no answer', at: 1 }),
        c: reported({ type: 'skipped', provider: 'kind', candidate: 'west', reason: 'bad kubeconfig', at: 2 }),
        d: reported({ type: 'error', provider: 'kind', reason: 'kind get clusters failed', at: 3 }),
        e: reported({ type: 'source', provider: 'kubeconfig-secrets', state: 'recovered', management: clusterName('hub'), resource: 'secrets', reason: 'works again', at: 4 }),
      });
      expectObservable(withPrefix('dev#', src).pipe(map(show))).toBe('abcde', {
        a: '!engaged dev#east (kind @0)',
        b: '!waiting dev#east: no answer (kind @1)',
        c: '!skipped dev#west: bad kubeconfig (kind @2)',
        d: '!error : kind get clusters failed (kind @3)',
        e: '!source : works again (kubeconfig-secrets @4)',
      });
    });
  });
});

describe('multiProvider', () => {
  it('should merge providers added before and after subscription, and disengage a removed provider’s clusters as it unsubscribes from it', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const one = hot<FleetEvent>('-a---b----', { a: engaged(fakeCluster('x')), b: engaged(fakeCluster('y')) });
      const two = cold<FleetEvent>('a', { a: engaged(fakeCluster('x')) });
      const all = multiProvider({ one }, { scheduler: ts });
      ts.schedule(() => {
        all.add('two', two);
      }, 3);
      ts.schedule(() => {
        all.remove('one');
      }, 7);
      // 'one' was the whole first pass (it never said discovered): its removal ends the pass, once
      // its clusters left, with what stays engaged (two#x; 'two' came later, its candidates not counted).
      expectObservable(all.pipe(map(show)), '^ 9ms !').toBe('-a-b-c-(dDeEP)', {
        a: '+one#x',
        b: '+two#x',
        c: '+one#y',
        d: '-one#x',
        D: '!disengaged one#x: provider "one" removed (multi @7)',
        e: '-one#y',
        E: '!disengaged one#y: provider "one" removed (multi @7)',
        P: '!discovered 1/0 (multi @7)',
      });
      expectSubscriptions(one.subscriptions).toBe('^------!');
      expectSubscriptions(two.subscriptions).toBe('---^------!');
    });
    expect(multiProvider({ a: multiProvider() }).names()).toEqual(['a']);
  });

  it('should replace a provider added under a name in use, disengaging the old one’s clusters first', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const first = cold<FleetEvent>('a', { a: engaged(fakeCluster('x')) });
      const second = cold<FleetEvent>('a', { a: engaged(fakeCluster('z')) });
      const all = multiProvider({ p: first }, { separator: '/', scheduler: ts });
      ts.schedule(() => {
        all.add('p', second);
      }, 2);
      // The replaced provider ends the first pass after its cluster left, so the pass counts none.
      expectObservable(all.pipe(map(show)), '^ 5ms !').toBe('a-(bBPc)', { a: '+p/x', b: '-p/x', B: '!disengaged p/x: provider "p" replaced (multi @2)', P: '!discovered 0/0 (multi @2)', c: '+p/z' });
    });
  });

  it('should pass each provider’s reports through in order with its events, names prefixed', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const east = fakeCluster('east');
      const kind = cold<FleetEvent>('(ar)-s', {
        a: engaged(east),
        r: reported({ type: 'engaged', provider: 'kind', cluster: east.name, at: 0 }),
        s: reported({ type: 'skipped', provider: 'kind', candidate: 'west', reason: 'kind get kubeconfig --name west exited with code 1', at: 2 }),
      });
      expectObservable(multiProvider({ kind }, { scheduler: ts }).pipe(map(show))).toBe('(ar)-s', {
        a: '+kind#east',
        r: '!engaged kind#east (kind @0)',
        s: '!skipped kind#west: kind get kubeconfig --name west exited with code 1 (kind @2)',
      });
    });
  });

  it('should report a provider that errors and disengage its clusters, leaving the others running', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const broken = cold<FleetEvent>('a-#', { a: engaged(fakeCluster('x')) }, new Error('boom'));
      const fine = cold<FleetEvent>('-------a', { a: engaged(fakeCluster('y')) });
      const all = multiProvider({ broken, fine }, { scheduler: ts });
      expectObservable(all.pipe(map(show)), '^ 9ms !').toBe('a-(eby)c', {
        a: '+broken#x',
        e: '!error : provider "broken" failed: boom (multi @2)',
        b: '-broken#x',
        y: '!disengaged broken#x: provider "broken" failed (multi @2)',
        c: '+fine#y',
      });
    });
  });
});
