// examples/crd-types as users copy it, in virtual time on the in-memory fleet: a Widget's status
// says its settings ConfigMap is written, so the status is never written after that apply failed.
// (It was: `concat(apply, applyStatus)` sent both in the same frame under an injected 500.)
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { widgetController } from '../../examples/crd-types/controller.js';
import type { Widget } from '../../examples/crd-types/widget-v1.js';
import { widgets } from '../../examples/crd-types/widget-v1.js';
import { configMaps } from 'rxfleet';
import { inMemoryFleet, runController, statusFailure, toLabels } from 'rxfleet/testing';

const widget: Widget = { apiVersion: 'crd-types.rxfleet.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', generation: 1 }, spec: { image: 'nginx', port: 80 } };

describe('examples/crd-types', () => {
  it('writes the status only after the settings apply succeeded: a failed apply is retried first', () => {
    const fleet = inMemoryFleet({ clusters: { east: [widget] }, resources: [widgets] });
    fleet.inject({ cluster: 'east', verb: 'apply', resource: configMaps, failure: statusFailure(500) });
    const { reconcile } = widgetController(fleet.provider, 'default');
    new TestScheduler((actual, expected) => {
      expect(actual).toEqual(expected);
    }).run(({ expectObservable }) => {
      // The watches never end: the run is bounded by the subscription marble.
      expectObservable(runController({ inMemory: fleet, resource: widgets, reconcile }).pipe(toLabels()), '^ 10s !').toBe('a 4ms (bc)', {
        a: 'error east/default/w +5',
        b: 'done east/default/w #2',
        // The status write changed the Widget: its own reconcile writes nothing new.
        c: 'done east/default/w',
      });
      // The failed apply alone in its frame; after the backoff, the apply and then the status (and
      // both again from the reconcile the status change woke, which changes nothing).
      const writes = fleet.writes({ cluster: 'east' });
      expectObservable(writes, '^ 10s !').toBe('a 4ms (bcbc)', {
        a: 'apply east/default/widget-w → 500',
        b: 'apply east/default/widget-w',
        c: 'apply/status east/default/w',
      });
    });
  });
});
