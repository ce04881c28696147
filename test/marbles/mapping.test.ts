import { merge } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, done, namespaces, resource } from '../../src/index.js';
import { mapToKeys, mapToOwner, reconcile } from '../../src/operators/index.js';
import type { KeyedEvent } from '../../src/streams/events.js';
import { keyedEvents, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const pods = resource({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true });
const replicaSets = resource({ group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true });
const podEvents = keyedEvents(pods);
const rsEvents = keyedEvents(replicaSets);

describe('mapToOwner', () => {
  it('should enqueue the owner of the given kind and group, in the same cluster and namespace', () => {
    const owners = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'ReplicaSet', name: 'wrong-group', uid: 'u2' },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'wrong-kind', uid: 'u3' },
      { apiVersion: 'apps/v1beta2', kind: 'ReplicaSet', name: 'web-2', uid: 'u4' },
    ];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<KeyedEvent>('a 9ms b 9ms x', {
        a: podEvents.applied('east', 'prod/web-1-abc', { metadata: { ownerReferences: owners } }),
        b: podEvents.deleted('west', 'prod/orphan'),
        x: podEvents.removed('east'),
      });
      expectObservable(input.pipe(mapToOwner(replicaSets))).toBe('(ab) 16ms x', {
        a: rsEvents.enqueue('east', 'prod/web-1'),
        b: rsEvents.enqueue('east', 'prod/web-2'),
        x: rsEvents.removed('east'),
      });
      expectObservable(input.pipe(mapToOwner(replicaSets, { controllerOnly: true }))).toBe('a 19ms x', {
        a: rsEvents.enqueue('east', 'prod/web-1'),
        x: rsEvents.removed('east'),
      });
    });
  });

  it('should key a cluster-scoped owner without a namespace', () => {
    const nsEvents = keyedEvents(namespaces);
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<KeyedEvent>('a', {
        a: podEvents.applied('east', 'team-a/p', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: 'u' }] } }),
      });
      expectObservable(input.pipe(mapToOwner(namespaces))).toBe('a', { a: nsEvents.enqueue('east', 'team-a') });
    });
  });
});

describe('mapToKeys', () => {
  it('should enqueue keys in other clusters, and let reconcile collapse duplicates', () => {
    const cm = keyedEvents(configMaps);
    testScheduler().run(({ hot, expectObservable }) => {
      const hub = hot<KeyedEvent>('a 9ms b', {
        a: podEvents.applied('hub', 'fleet/settings'),
        b: podEvents.applied('hub', 'fleet/settings'),
      });
      const everywhere = hub.pipe(
        mapToKeys(configMaps, (ev) => ['east', 'west', 'east'].map((c) => cm.key(c, `${ev.key.namespace}/${ev.key.name}`))),
      );
      expectObservable(everywhere).toBe('(abc) 5ms (abc)', {
        a: cm.enqueue('east', 'fleet/settings'),
        b: cm.enqueue('west', 'fleet/settings'),
        c: cm.enqueue('east', 'fleet/settings'),
      });
      const outcomes = everywhere.pipe(reconcile<ConfigMap>(() => done()), toLabels());
      expectObservable(outcomes).toBe('(abc) 5ms (abc)', { a: 'done east/fleet/settings', b: 'done west/fleet/settings', c: 'done east/fleet/settings' });
    });
  });

  it('should let reconcile accept events and mapped requests merged in one input', () => {
    const cm = keyedEvents(configMaps);
    const seen: (string | undefined)[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const direct = hot<ReconcileInput<ConfigMap>>('a---', { a: cm.applied('east', 'default/a') });
      const mapped = hot<KeyedEvent>('-b--', { b: podEvents.applied('east', 'default/p') }).pipe(
        mapToKeys(configMaps, (ev) => [cm.key(ev.key.cluster, 'default/a')]),
      );
      const out = merge(direct, mapped).pipe(
        reconcile<ConfigMap>((req) => (seen.push(req.object?.metadata.name), done())),
        toLabels(),
      );
      expectObservable(out).toBe('ab--', { a: 'done east/default/a', b: 'done east/default/a' });
    });
    // Without a lookup, a plain request for an idle key carries no object: pass a store's get.
    expect(seen).toEqual(['a', undefined]);
  });
});
