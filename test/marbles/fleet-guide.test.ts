// The in-memory fleet example of docs/testing.md. The region below is copied into the guide (with
// the published import paths), and the last test fails when the two drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// #region fleet-guide
import { TestScheduler } from 'rxjs/testing';
import type { ConfigMap, ControllerReconciler } from '../../src/index.js';
import { clusterName, configMaps, done, toAction } from '../../src/index.js';
import { apply } from '../../src/sinks/index.js';
import { inMemoryFleet, putChange, runController, statusFailure, toLabels } from '../../src/testing/index.js';

// The controller under test: every ConfigMap of the `hub` cluster is copied to `edge`.
const copyToEdge: ControllerReconciler<ConfigMap> = (req, ctx) => {
  if (req.cluster !== 'hub' || req.object === undefined) return done();
  const copy: ConfigMap = { metadata: { name: req.key.name, namespace: req.key.namespace }, data: req.object.data ?? {} };
  return apply(ctx.sinks, { cluster: clusterName('edge'), resource: configMaps, object: copy }).pipe(toAction());
};

const settings = (v: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { v } });

describe('copy-to-edge', () => {
  it('copies what the hub has, waits out a 429, and copies each change', () => {
    const fleet = inMemoryFleet({ clusters: { hub: [settings('1')], edge: [] } });
    fleet.inject({ cluster: 'edge', verb: 'apply', failure: statusFailure(429, { retryAfterSeconds: 1 }) });
    new TestScheduler((actual, expected) => {
      expect(actual).toEqual(expected);
    }).run(({ hot, expectObservable }) => {
      const changes = { hub: hot('2s a', { a: putChange(configMaps, settings('2')) }) };
      const outcomes = runController({ inMemory: fleet, resource: configMaps, reconcile: copyToEdge, changes });
      // The watches never end: bound the run with a subscription marble.
      expectObservable(fleet.writes({ cluster: 'edge' }), '^ 3s !').toBe('a 999ms b 999ms c', {
        a: 'apply edge/default/settings → 429',
        b: 'apply edge/default/settings',
        c: 'apply edge/default/settings',
      });
      // The edge copy is reconciled too (it writes nothing): the watch saw it change.
      expectObservable(outcomes.pipe(toLabels()), '^ 3s !').toBe('1s (ab) 996ms (cd)', {
        a: 'done hub/default/settings',
        b: 'done edge/default/settings',
        c: 'done hub/default/settings',
        d: 'done edge/default/settings',
      });
    });
    expect(fleet.object<ConfigMap>('edge', configMaps, 'default/settings')?.data).toEqual({ v: '2' });
  });
});
// #endregion fleet-guide

describe('the in-memory fleet guide', () => {
  it('should show the code of this file, verbatim', () => {
    const region = (text: string) => /\/\/ #region fleet-guide\n([\s\S]*?)\/\/ #endregion fleet-guide/.exec(text)?.[1];
    // The guide imports the published entry points where this file imports the sources.
    const test = region(readFileSync(new URL(import.meta.url), 'utf8'))
      ?.replaceAll("'../../src/index.js'", "'rxfleet'")
      .replaceAll("'../../src/sinks/index.js'", "'rxfleet/sinks'")
      .replaceAll("'../../src/testing/index.js'", "'rxfleet/testing'");
    const guide = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');
    const block = /```ts\n\/\/ test\/marbles\/fleet-guide\.test\.ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(test).toBeDefined();
    expect(block).toBe(test);
  });
});
