// Composition in virtual time: multi merges named providers under `<provider>#<cluster>`, follows
// add and remove, and disengages exactly the clusters of a removed provider.
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { FleetEvent } from '../../src/index.js';
import { clusterName, disengaged, engaged } from '../../src/index.js';
import { multi, withPrefix } from '../../src/providers/multi/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { testScheduler } from './watch-fixtures.js';

const show = (ev: FleetEvent): string => (ev.type === 'engaged' ? `+${ev.cluster.name}` : `-${ev.name}`);

describe('withPrefix', () => {
  it('should prefix engaged and disengaged names and keep the client', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const east = fakeCluster('east');
      const src = cold<FleetEvent>('a-b', { a: engaged(east), b: disengaged(clusterName('east'), 'why') });
      const out = withPrefix('prod#', src);
      expectObservable(out.pipe(map(show))).toBe('a-b', { a: '+prod#east', b: '-prod#east' });
      expectObservable(out.pipe(map((ev) => (ev.type === 'engaged' ? ev.cluster.client === east.client : ev.reason)))).toBe('a-b', { a: true, b: 'why' });
    });
  });
});

describe('multi', () => {
  it('should merge providers added before and after subscription, and disengage a removed provider’s clusters as it unsubscribes from it', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const one = hot<FleetEvent>('-a---b----', { a: engaged(fakeCluster('x')), b: engaged(fakeCluster('y')) });
      const two = cold<FleetEvent>('a', { a: engaged(fakeCluster('x')) });
      const all = multi({ one });
      ts.schedule(() => {
        all.add('two', two);
      }, 3);
      ts.schedule(() => {
        all.remove('one');
      }, 7);
      expectObservable(all.pipe(map(show)), '^ 9ms !').toBe('-a-b-c-(de)', { a: '+one#x', b: '+two#x', c: '+one#y', d: '-one#x', e: '-one#y' });
      expectSubscriptions(one.subscriptions).toBe('^------!');
      expectSubscriptions(two.subscriptions).toBe('---^------!');
    });
    expect(multi({ a: multi() }).names()).toEqual(['a']);
  });

  it('should replace a provider added under a name in use, disengaging the old one’s clusters first', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const first = cold<FleetEvent>('a', { a: engaged(fakeCluster('x')) });
      const second = cold<FleetEvent>('a', { a: engaged(fakeCluster('z')) });
      const all = multi({ p: first }, { separator: '/' });
      ts.schedule(() => {
        all.add('p', second);
      }, 2);
      expectObservable(all.pipe(map(show)), '^ 5ms !').toBe('a-(bc)', { a: '+p/x', b: '-p/x', c: '+p/z' });
    });
  });

  it('should report a provider that errors and disengage its clusters, leaving the others running', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const broken = cold<FleetEvent>('a-#', { a: engaged(fakeCluster('x')) }, new Error('boom'));
      const fine = cold<FleetEvent>('---a', { a: engaged(fakeCluster('y')) });
      const reports: string[] = [];
      const all = multi({ broken, fine }, { scheduler: ts, report: (r) => reports.push(`${r.at} ${r.type}`) });
      expectObservable(all.pipe(map(show)), '^ 5ms !').toBe('a-bc', { a: '+broken#x', b: '-broken#x', c: '+fine#y' });
      ts.flush();
      expect(reports).toEqual(['2 error', '2 disengaged']);
    });
  });
});
