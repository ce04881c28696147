// The event recorder's aggregation in virtual time: repeats within the window patch one Event's
// series, a repeat after the window starts a new Event, memory stays bounded, and patches of one
// series go out one at a time with the latest count.
import { defer, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { EventRecord } from '../../src/sinks/index.js';
import { eventRecorder, sinkContext } from '../../src/sinks/index.js';
import { err, fakeClient, fakeFleet } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';

const regarding = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'app', uid: 'u-1' };
const ev = (cluster = 'east', note = 'synced'): EventRecord => ({ cluster: clusterName(cluster), regarding, type: 'Normal', reason: 'Synced', action: 'Apply', note });

function recording(ts: TestScheduler, latency = '(a|)') {
  const calls: { at: number; verb: 'create' | 'patch'; name: string; body: unknown }[] = [];
  const client = fakeClient({
    create: (o) =>
      defer(() => {
        calls.push({ at: ts.now(), verb: 'create', name: o.metadata.name ?? '', body: o });
        return ts.createColdObservable(latency, { a: E.right(o) });
      }),
    patch: (name, patch) =>
      defer(() => {
        calls.push({ at: ts.now(), verb: 'patch', name, body: patch });
        return ts.createColdObservable(latency, { a: E.right<never, KubeObject>({ metadata: { name } }) });
      }),
  });
  return { client, calls };
}

function setup(ts: TestScheduler, clients: Parameters<typeof fakeFleet>[0], windowMs = 1000, maxEntries = 100) {
  const ctx = sinkContext({ clusters: fakeFleet(clients), fieldManager: 'test', scheduler: ts, random: () => 0.25 });
  return eventRecorder(ctx, { reportingController: 'test.rxfleet.dev/ctl', reportingInstance: 'pod-0', windowMs, maxEntries });
}

describe('eventRecorder', () => {
  it('should create one Event, then patch its series count on repeats within the window', () => {
    const ts = testScheduler();
    const east = recording(ts);
    ts.run(({ flush }) => {
      const rec = setup(ts, { east: east.client });
      for (const t of [0, 100, 200]) ts.schedule(() => rec.record(ev()).subscribe(), t);
      flush();
    });
    expect(east.calls.map((c) => [c.at, c.verb])).toEqual([
      [0, 'create'],
      [100, 'patch'],
      [200, 'patch'],
    ]);
    const created = east.calls[0]?.body as Record<string, unknown>;
    expect(created).toMatchObject({
      metadata: { namespace: 'default' },
      reportingController: 'test.rxfleet.dev/ctl',
      reportingInstance: 'pod-0',
      regarding,
      reason: 'Synced',
      action: 'Apply',
      type: 'Normal',
      note: 'synced',
      eventTime: '1970-01-01T00:00:00.000000Z',
    });
    expect(east.calls.slice(1).map((c) => c.name)).toEqual([east.calls[0]?.name, east.calls[0]?.name]);
    expect(east.calls.slice(1).map((c) => c.body)).toEqual([
      { series: { count: 2, lastObservedTime: '1970-01-01T00:00:00.100000Z' } },
      { series: { count: 3, lastObservedTime: '1970-01-01T00:00:00.200000Z' } },
    ]);
  });

  it('should aggregate per cluster and per note, and start afresh after the window', () => {
    const ts = testScheduler();
    const east = recording(ts);
    const west = recording(ts);
    ts.run(({ flush }) => {
      const rec = setup(ts, { east: east.client, west: west.client });
      ts.schedule(() => rec.record(ev('east')).subscribe(), 0);
      ts.schedule(() => rec.record(ev('west')).subscribe(), 0);
      ts.schedule(() => rec.record(ev('east', 'other note')).subscribe(), 0);
      ts.schedule(() => rec.record(ev('east')).subscribe(), 2500);
      flush();
    });
    expect(east.calls.map((c) => [c.at, c.verb])).toEqual([
      [0, 'create'],
      [0, 'create'],
      [2500, 'create'],
    ]);
    expect(west.calls.map((c) => c.verb)).toEqual(['create']);
  });

  it('should send one patch of a series at a time, folding repeats that arrive meanwhile into the next one', () => {
    const ts = testScheduler();
    const east = recording(ts, '10ms (a|)');
    ts.run(({ flush }) => {
      const rec = setup(ts, { east: east.client });
      for (const t of [0, 1, 2, 3]) ts.schedule(() => rec.record(ev()).subscribe(), t);
      flush();
    });
    expect(east.calls.map((c) => [c.at, c.verb, (c.body as { series?: { count: number } }).series?.count])).toEqual([
      [0, 'create', undefined],
      [10, 'patch', 4],
    ]);
  });

  it('should forget the least recently seen series beyond maxEntries', () => {
    const ts = testScheduler();
    const east = recording(ts);
    ts.run(({ flush }) => {
      const rec = setup(ts, { east: east.client }, 10_000, 2);
      ['a', 'b', 'c', 'a'].forEach((note, i) => ts.schedule(() => rec.record(ev('east', note)).subscribe(), i));
      flush();
    });
    // 'a' was evicted by 'c', so its repeat creates a new Event.
    expect(east.calls.map((c) => c.verb)).toEqual(['create', 'create', 'create', 'create']);
  });

  it('should report a failed write as a value and create afresh next time', () => {
    const ts = testScheduler();
    let fail = true;
    const client = fakeClient({
      create: (o) => defer(() => (fail ? ((fail = false), of(E.left(err('Forbidden', 'east', { code: 403 })))) : of(E.right(o)))),
    });
    ts.run(({ expectObservable }) => {
      const rec = setup(ts, { east: client });
      expectObservable(rec.record(ev())).toBe('(x|)', { x: E.left(expect.objectContaining({ type: 'Forbidden', verb: 'create' })) });
      expectObservable(defer(() => rec.record(ev()))).toBe('(x|)', { x: E.right(expect.objectContaining({ verb: 'create', changed: true })) });
    });
  });
});
