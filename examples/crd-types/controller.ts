// crd-types: a controller that reconciles a custom resource through types generated from its CRD
// (`npx rxfleet gen types widget-crd.yaml --out .`). Every Widget gets a ConfigMap of settings
// rendered from its typed spec, and its status says which ConfigMap and generation.
import type { ConfigMap, Controller, Provider } from 'rxfleet';
import { configMaps, controller, done, toAction } from 'rxfleet';
import { apply, thenWrite } from 'rxfleet/sinks';
import type { Widget, WidgetSpec } from './widget-v1.js';
import { widgets } from './widget-v1.js';

/** The ConfigMap a Widget asks for: `port` may be a number or a name (int-or-string), limits quantities or numbers. */
export function renderSettings(name: string, namespace: string, spec: WidgetSpec): ConfigMap {
  const limits = Object.entries(spec.limits ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  return {
    metadata: { name: `widget-${name}`, namespace, labels: { 'app.kubernetes.io/managed-by': 'crd-types' } },
    data: {
      image: spec.image,
      port: typeof spec.port === 'number' ? String(spec.port) : spec.port,
      replicas: String(spec.replicas ?? 1),
      tier: spec.tier ?? 'standard',
      env: (spec.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`).join('\n'),
      limits: limits.join(','),
    },
  };
}

/** Builds the controller over every cluster `provider` finds, for Widgets in `namespace` ('' for all). */
export function widgetController(provider: Provider, namespace = ''): Controller<Widget> {
  return controller({
    name: 'crd-types',
    provider,
    resource: widgets,
    select: { namespace },
    reconcile: (req, ctx) => {
      const w = req.object;
      if (w?.spec === undefined) return done(); // deleted, or not yet valid: nothing to render
      const ns = w.metadata.namespace ?? 'default';
      const name = w.metadata.name ?? req.key.name;
      const settings = renderSettings(name, ns, w.spec);
      const status: Widget = { metadata: { name, namespace: ns }, status: { settings: settings.metadata.name ?? '', observedGeneration: w.metadata.generation ?? 0 } };
      // The status says the settings are written: it is written only after they were (a failed
      // apply ends the chain, and toAction() retries the reconcile).
      return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: settings }).pipe(
        thenWrite(() => apply(ctx.sinks, { cluster: req.cluster, resource: widgets, object: status, subresource: 'status' })),
        toAction(),
      );
    },
  });
}
