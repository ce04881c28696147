// Shared pieces of the sinks' integration tests: a FleetView over sandboxes, and a CRD with a
// status subresource.
import type { Cluster, FleetView } from '../../src/client/cluster.js';
import type { ClusterClient, ClusterName, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { customResourceDefinitions, E, resource } from '../../src/index.js';
import { eventually, randomName } from './targets.js';

export function right<T>(r: E.Either<{ message: string }, T>): T {
  if (E.isLeft(r)) throw new Error(r.left.message);
  return r.right;
}

/** A FleetView over fixed clusters: what a provider-driven fleet would show at one moment. */
export function fixedFleet(clusters: readonly { readonly cluster: ClusterName; readonly client: ClusterClient }[]): FleetView {
  const all: readonly Cluster[] = clusters.map((c) => ({ name: c.cluster, client: c.client }));
  return { get: (name: ClusterName) => all.find((c) => c.name === name), clusters: () => all };
}

export interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean; note?: string };
}

/** Creates a namespaced `widgets` CRD (status subresource on) in a fresh group and waits until it is served. */
export async function widgetsCrd(client: ClusterClient, namespace: string): Promise<ResourceDescriptor<Widget>> {
  const group = `${randomName('s')}.rxfleet.dev`;
  const widgets = resource<Widget>({ group, version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
  right(
    await client.apply(
      customResourceDefinitions,
      {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { size: { type: 'integer' } } },
                    status: { type: 'object', properties: { ready: { type: 'boolean' }, note: { type: 'string' } } },
                  },
                },
              },
            },
          ],
        },
      },
      { fieldManager: 'rxfleet-test' },
    ),
  );
  await eventually('the widgets resource to be served', async () => {
    const r = await client.list(widgets, { namespace, limit: 1 });
    return E.isRight(r) ? true : r.left._tag === 'NotFound' ? undefined : Promise.reject(new Error(r.left.message));
  });
  return widgets;
}
