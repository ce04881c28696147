// runController with a whole controller, in virtual time: what `controller({...})` declares
// beyond its reconciler — select, filter, inputs, queue options, field manager — applies as under
// `run`, because the harness assembles the same pipeline. The reconciler alone would see one
// reconcile more: its own status write, which the controller's generationChanged() filter drops.
import { describe, expect, it } from 'vitest';
import type { ConfigMap, KubeObject } from '../../src/index.js';
import { configMaps, controller, done, objectKey, resource, toAction } from '../../src/index.js';
import { generationChanged, mapToKeys } from '../../src/operators/index.js';
import type { ControllerReconciler, Provider } from '../../src/index.js';
import { apply } from '../../src/sinks/index.js';
import { inMemoryFleet, putChange, runController, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

interface Widget extends KubeObject {
  readonly spec?: { readonly size?: number };
  readonly status?: { readonly observedGeneration?: number };
}
const widgets = resource<Widget>({ group: 'demo.rxfleet.dev', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
const widget = (name: string, namespace = 'default'): Widget => ({ apiVersion: 'demo.rxfleet.dev/v1', kind: 'Widget', metadata: { name, namespace }, spec: { size: 1 } });
const settings = (name: string, v: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });

// Writes each Widget's status: the generation it saw.
const writeStatus: ControllerReconciler<Widget> = (req, ctx) => {
  if (req.object === undefined) return done();
  const status = { observedGeneration: req.object.metadata.generation ?? 0 };
  return apply(ctx.sinks, { cluster: req.cluster, resource: widgets, object: { metadata: { name: req.key.name, namespace: req.key.namespace }, status }, subresource: 'status' }).pipe(toAction());
};

const widgetController = (provider: Provider) =>
  controller<Widget>({
    name: 'widget-status',
    provider,
    resource: widgets,
    select: { namespace: 'default' },
    filter: generationChanged(),
    // A Widget is reconciled again when its settings ConfigMap (same name) changes.
    inputs: ({ fleetWatch }) => [fleetWatch(configMaps, { namespace: 'default' }).pipe(mapToKeys(widgets, (ev) => [objectKey(ev.key.cluster, 'default', ev.key.name)]))],
    queue: { debounce: { waitMs: 2 } },
    reconcile: writeStatus,
  });

describe('runController with a whole controller', () => {
  it('applies its filter: its own status write wakes it no more, where the reconciler alone reconciled again', () => {
    const fleet = inMemoryFleet({ clusters: { east: [widget('w')] }, resources: [widgets] });
    testScheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: fleet, controller: widgetController(fleet.provider) });
      // One reconcile (after the 2 ms debounce of its queue options), one status write.
      expectObservable(out.pipe(toLabels()), '^ 50ms !').toBe('2ms a', { a: 'done east/default/w' });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('2ms a', { a: 'apply/status east/default/w' });
    });
    // With the controller's field manager.
    expect(fleet.requests.filter((r) => r.verb === 'apply').map((r) => r.fieldManager)).toEqual(['widget-status']);

    // The reconciler alone has no filter: the status write comes back as one reconcile more.
    const alone = inMemoryFleet({ clusters: { east: [widget('w')] }, resources: [widgets] });
    testScheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: alone, resource: widgets, reconcile: writeStatus });
      expectObservable(out.pipe(toLabels()), '^ 50ms !').toBe('(ab)', { a: 'done east/default/w', b: 'done east/default/w' });
    });
  });

  it('applies its select and its inputs: a Widget outside the namespace is never reconciled, a change of its settings ConfigMap reconciles it', () => {
    const fleet = inMemoryFleet({ clusters: { east: [widget('w'), widget('x', 'elsewhere')] }, resources: [widgets] });
    testScheduler().run(({ hot, expectObservable }) => {
      const changes = { east: hot('10ms a 9ms b', { a: putChange(configMaps, settings('w', '1')), b: putChange(configMaps, settings('unrelated', '1')) }) };
      const out = runController({ inMemory: fleet, controller: widgetController(fleet.provider), changes });
      // 2: the first list (debounced 2 ms). 12: w's ConfigMap changed (+2 ms). 22: the key of the
      // unrelated ConfigMap has no Widget: reconciled, nothing to do, nothing written.
      expectObservable(out.pipe(toLabels()), '^ 50ms !').toBe('2ms a 9ms a 9ms b', { a: 'done east/default/w', b: 'done east/default/unrelated' });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('2ms a 9ms a', { a: 'apply/status east/default/w' });
    });
  });
});
