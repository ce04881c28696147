// The APIExport fixture of kcp-sim, shaped as test/support/kcp-apiexport.ts makes it in a real kcp:
// a provider workspace with an APIExportEndpointSlice listing the export's virtual-workspace URL,
// and consumer workspaces (logical clusters) each with a Bound APIBinding and Widgets. The objects
// carry what kcp's do over the wire (generation, a managedFields entry, `kcp.io/cluster`), so a
// client parses as much per object as it would from kcp.
import { createHash } from 'node:crypto';
import type { ResourceDescriptor } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { apiBindings, apiExportEndpointSlices } from '../../src/providers/kcp/types.js';
import type { Widget } from '../../test/support/kcp-apiexport.js';
import type { KcpSim } from './server.js';

/** A simulated export: names, the Widget resource and the provider workspace's kubeconfig. */
export interface SimExport {
  readonly exportName: string;
  readonly group: string;
  readonly providerCluster: string;
  readonly widgets: ResourceDescriptor<Widget>;
  /** The virtual-workspace URL the endpoint slice lists. */
  readonly endpointUrl: string;
  /** A kubeconfig (JSON) of the provider workspace. */
  providerKubeconfig(): string;
}

/**
 * A logical cluster name as kcp makes them (16 lower-case base-36 characters), deterministic in `i`.
 *
 * @example
 * ```ts
 * logicalName(0); // e.g. '1x0fz3m8q2k7c4ab'
 * ```
 * @param i - the workspace's number.
 * @returns its logical cluster name.
 */
export function logicalName(i: number): string {
  const h = createHash('sha256').update(`kcp-sim workspace ${i}`).digest();
  return BigInt(`0x${h.subarray(0, 12).toString('hex')}`).toString(36).padStart(16, '0').slice(0, 16);
}

/**
 * Defines the export's resources in the sim, serves its virtual workspace and publishes the
 * endpoint slice (named after the export) in the provider workspace.
 *
 * @example
 * ```ts
 * const fx = setupSimExport(sim, { exportName: 'widgets.bench.io' });
 * ```
 * @param sim - the running sim.
 * @param names - the export's name, group and provider workspace (defaults: widgets.sim.rxfleet.io, sim.rxfleet.io, root:provider).
 * @returns the export.
 */
export function setupSimExport(sim: KcpSim, names: { readonly exportName?: string; readonly group?: string; readonly providerCluster?: string } = {}): SimExport {
  const group = names.group ?? 'sim.rxfleet.io';
  const exportName = names.exportName ?? `widgets.${group}`;
  const providerCluster = names.providerCluster ?? 'root:provider';
  const widgets = resource<Widget>({ group, version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
  for (const r of [apiExportEndpointSlices, apiBindings, widgets]) sim.store.define(r);
  const endpointUrl = sim.serveExport(providerCluster, exportName);
  sim.store.put(apiExportEndpointSlices, providerCluster, {
    metadata: { name: exportName },
    spec: { export: { path: providerCluster, name: exportName } },
    status: { endpoints: [{ url: endpointUrl }] },
  });
  return { exportName, group, providerCluster, widgets, endpointUrl, providerKubeconfig: () => sim.kubeconfig(providerCluster) };
}

const managedFields = (manager: string, fields: object): object[] => [{ manager, operation: 'Update', apiVersion: 'v1', time: new Date(0).toISOString(), fieldsType: 'FieldsV1', fieldsV1: fields }];

/**
 * Binds workspaces `from` … `from + count − 1`: a Bound APIBinding each (named after the export)
 * and `objects` Widgets (`w-0` … in namespace `default`).
 *
 * @example
 * ```ts
 * const names = bindSimWorkspaces(sim, fx, 0, 10_000, 10);
 * ```
 * @param sim - the running sim.
 * @param fx - the export.
 * @param from - the first workspace's number.
 * @param count - how many workspaces.
 * @param objects - Widgets per workspace.
 * @returns the logical cluster names, in order.
 */
export function bindSimWorkspaces(sim: KcpSim, fx: SimExport, from: number, count: number, objects: number): string[] {
  const names: string[] = [];
  for (let i = from; i < from + count; i++) {
    const cluster = logicalName(i);
    names.push(cluster);
    sim.store.put(apiBindings, cluster, {
      metadata: { name: fx.exportName, managedFields: managedFields('kubectl', { 'f:spec': { 'f:reference': {} } }) },
      spec: { reference: { export: { path: fx.providerCluster, name: fx.exportName } } },
      status: { phase: 'Bound', apiExportClusterName: fx.providerCluster, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(0).toISOString() }] },
    });
    for (let j = 0; j < objects; j++) {
      sim.store.put(fx.widgets, cluster, {
        metadata: { name: `w-${j}`, namespace: 'default', generation: 1, managedFields: managedFields('rxfleet-bench', { 'f:spec': { '.': {}, 'f:size': {} } }) },
        spec: { size: j },
      });
    }
  }
  return names;
}
