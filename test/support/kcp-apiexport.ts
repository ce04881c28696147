// An APIExport set-up in a real kcp for the kcp provider tests: a provider workspace with an
// APIResourceSchema and an APIExport, consumer workspaces that bind it, and the waits that make
// the virtual workspace usable (binding Bound, endpoint URL published, wildcard list served).
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ResourceDescriptor } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { field, requestJson, stringField } from './http.js';
import type { KcpWorkspace } from './kcp.js';
import { createKcpWorkspace, kcpClusterKubeConfig, loadKcpAdminKubeConfig } from './kcp.js';
import { waitUntil } from './process.js';

/** The exported test resource: a namespaced Widget with a status subresource and free-form spec/status. */
export interface Widget extends KubeObject {
  readonly spec?: { readonly size?: number; readonly owner?: string };
  readonly status?: { readonly observedSize?: number; readonly cluster?: string };
}

export interface ApiExportFixture {
  readonly adminKubeconfigPath: string;
  readonly providerWorkspace: KcpWorkspace;
  readonly exportName: string;
  readonly group: string;
  readonly widgets: ResourceDescriptor<Widget>;
  readonly consumers: KcpWorkspace[];
  /** `https://host/services/apiexport/<provider logical>/<export>`, once published. */
  readonly endpointUrl: string;
  /** The provider workspace's kubeconfig (admin user), re-read from admin.kubeconfig at each call. */
  providerKubeconfig(): string;
  /** A new consumer workspace with a Bound APIBinding. */
  addConsumer(name?: string): Promise<KcpWorkspace>;
  /** Binds the export in a workspace and waits for Bound. */
  bind(ws: KcpWorkspace): Promise<void>;
  /** Deletes the workspace's APIBinding and waits until it is gone. */
  unbind(ws: KcpWorkspace): Promise<void>;
  /** A kubeconfig of a workspace (admin), for direct writes in tests. */
  workspaceKubeConfig(ws: KcpWorkspace): KubeConfig;
}

export interface ApiExportFixtureOptions {
  readonly consumers?: number;
  /** Timeout of each wait (default 120 s). */
  readonly timeoutMs?: number;
}

const BINDING = 'widgets-binding';

/** Sends one request and gives the answer's body; throws unless its status is one of `ok`. */
async function requestOk(kc: KubeConfig, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, ok: readonly number[] = [200, 201]): Promise<unknown> {
  const res = await requestJson(kc, method, path, body);
  if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

/**
 * Sets up a provider workspace exporting `widgets.<random group>` and `consumers` bound consumer
 * workspaces, and waits until the export's virtual workspace lists widgets across them.
 *
 * @example
 * const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 3 });
 */
export async function setupApiExport(adminKubeconfigPath: string, opts: ApiExportFixtureOptions = {}): Promise<ApiExportFixture> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const suffix = randomBytes(4).toString('hex');
  const group = `w${suffix}.rxfleet.dev`;
  const exportName = `widgets.${group}`;
  const schemaName = `v1.widgets.${group}`;
  const providerWorkspace = await createKcpWorkspace(adminKubeconfigPath, `prov-${suffix}`);
  const providerKc = (): KubeConfig => kcpClusterKubeConfig(adminKubeconfigPath, providerWorkspace.path);
  const widgets = resource<Widget>({ group, version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });

  await requestOk(providerKc(), 'POST', '/apis/apis.kcp.io/v1alpha1/apiresourceschemas', {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: schemaName },
    spec: {
      group,
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      ],
    },
  });
  // kcp v0.28.1 serves APIExport in v1alpha2 (v1alpha1 too); v1alpha2 names schemas per resource.
  await requestOk(providerKc(), 'POST', '/apis/apis.kcp.io/v1alpha2/apiexports', {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: exportName },
    spec: { resources: [{ group, name: 'widgets', schema: schemaName, storage: { crd: {} } }] },
  });

  const workspaceKubeConfig = (ws: KcpWorkspace): KubeConfig => kcpClusterKubeConfig(adminKubeconfigPath, ws.path);
  const bind = async (ws: KcpWorkspace): Promise<void> => {
    await waitUntil(
      `APIBinding in ${ws.path} to be created`,
      async () => {
        await requestOk(
          workspaceKubeConfig(ws),
          'POST',
          '/apis/apis.kcp.io/v1alpha2/apibindings',
          { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name: BINDING }, spec: { reference: { export: { path: providerWorkspace.path, name: exportName } } } },
          [200, 201, 409],
        );
        return true;
      },
      { timeoutMs, intervalMs: 500 },
    );
    await waitUntil(
      `APIBinding in ${ws.path} to be Bound`,
      async () => {
        const b = await requestOk(workspaceKubeConfig(ws), 'GET', `/apis/apis.kcp.io/v1alpha2/apibindings/${BINDING}`);
        return stringField(b, 'status', 'phase') === 'Bound' ? true : undefined;
      },
      { timeoutMs, intervalMs: 250 },
    );
    // The API is served in the workspace itself (what tests write through).
    await waitUntil(
      `widgets to be served in ${ws.path}`,
      async () => ((await requestJson(workspaceKubeConfig(ws), 'GET', `/apis/${group}/v1/namespaces/default/widgets`)).status === 200 ? true : undefined),
      { timeoutMs, intervalMs: 250 },
    );
  };
  const unbind = async (ws: KcpWorkspace): Promise<void> => {
    await requestOk(workspaceKubeConfig(ws), 'DELETE', `/apis/apis.kcp.io/v1alpha2/apibindings/${BINDING}`, undefined, [200, 202, 404]);
    await waitUntil(
      `APIBinding in ${ws.path} to be gone`,
      async () => ((await requestJson(workspaceKubeConfig(ws), 'GET', `/apis/apis.kcp.io/v1alpha2/apibindings/${BINDING}`)).status === 404 ? true : undefined),
      { timeoutMs, intervalMs: 250 },
    );
  };
  const addConsumer = async (name?: string): Promise<KcpWorkspace> => {
    const ws = await createKcpWorkspace(adminKubeconfigPath, name ?? `cons-${suffix}-${randomBytes(3).toString('hex')}`);
    await bind(ws);
    return ws;
  };

  const consumers: KcpWorkspace[] = [];
  for (let i = 0; i < (opts.consumers ?? 0); i++) consumers.push(await addConsumer());

  const endpointUrl =
    consumers.length === 0
      ? ''
      : await waitUntil(
          `the endpoint slice of ${exportName} to list a URL`,
          async () => {
            const slice = await requestOk(providerKc(), 'GET', `/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/${exportName}`);
            const endpoints = field(slice, 'status', 'endpoints');
            const first: unknown = Array.isArray(endpoints) ? (endpoints as unknown[])[0] : undefined;
            return stringField(first, 'url');
          },
          { timeoutMs, intervalMs: 250 },
        );
  if (endpointUrl !== '') {
    await waitUntil(
      `the virtual workspace to list widgets`,
      async () => ((await requestJson(loadKcpAdminKubeConfig(adminKubeconfigPath), 'GET', `${endpointUrl}/clusters/*/apis/${group}/v1/widgets`)).status === 200 ? true : undefined),
      { timeoutMs, intervalMs: 250 },
    );
  }

  return {
    adminKubeconfigPath,
    providerWorkspace,
    exportName,
    group,
    widgets,
    consumers,
    endpointUrl,
    // Re-read every time (kcpClusterKubeConfig reads the file): a restarted kcp writes a new token.
    providerKubeconfig: () => providerKc().exportConfig(),
    addConsumer,
    bind,
    unbind,
    workspaceKubeConfig,
  };
}

/** Creates (POST) an object in a workspace through its own URL (not the virtual workspace). */
export async function createIn(kc: KubeConfig, path: string, body: unknown): Promise<unknown> {
  return requestOk(kc, 'POST', path, body);
}

/** Reads an object in a workspace through its own URL; undefined on 404. */
export async function getIn(kc: KubeConfig, path: string): Promise<unknown> {
  const res = await requestJson(kc, 'GET', path);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}
