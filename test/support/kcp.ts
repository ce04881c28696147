// The kcp of the tests: rxfleet/envtest's (src/envtest/kcp.ts), with @kubernetes/client-node
// KubeConfigs added for the tests that drive kcp with that client.
import { KubeConfig } from '@kubernetes/client-node';
import type { KcpHandle as EnvtestKcpHandle, KcpOptions } from '../../src/envtest/kcp.js';
import { startKcp as startEnvtestKcp } from '../../src/envtest/kcp.js';
import type { CreateWorkspaceOptions, KcpWorkspace as EnvtestKcpWorkspace } from '../../src/envtest/kcp-workspace.js';
import { createKcpWorkspace as createEnvtestKcpWorkspace, KCP_ROOT_CONTEXT } from '../../src/envtest/kcp-workspace.js';

export type { KcpOptions, KcpPorts } from '../../src/envtest/kcp.js';
export type { CreateWorkspaceOptions } from '../../src/envtest/kcp-workspace.js';

/** A workspace (logical cluster) in kcp's root workspace. */
export interface KcpWorkspace extends EnvtestKcpWorkspace {
  /** A fresh KubeConfig for `<base>/clusters/root:<name>` with the admin credentials (re-read from disk). */
  kubeConfig(): KubeConfig;
}

export interface KcpHandle extends EnvtestKcpHandle {
  /** A fresh KubeConfig re-read from admin.kubeconfig (context `root`: server `<base>/clusters/root`). */
  adminKubeConfig(): KubeConfig;
  /** Creates a universal workspace in root and waits until it is Ready and serves its `default` namespace. */
  createWorkspace(name?: string): Promise<KcpWorkspace>;
}

/** Loads kcp's admin.kubeconfig with the `root` context selected. */
export function loadKcpAdminKubeConfig(adminKubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfigPath);
  if (kc.getContextObject(KCP_ROOT_CONTEXT) !== null) kc.setCurrentContext(KCP_ROOT_CONTEXT);
  return kc;
}

/** `https://host:port` of a kcp kubeconfig, without its `/clusters/...` path. */
export function kcpBaseUrl(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kcp kubeconfig has no current cluster');
  return new URL(cluster.server).origin;
}

/** A KubeConfig for `<base>/clusters/<clusterPath>` with the admin user of admin.kubeconfig. */
export function kcpClusterKubeConfig(adminKubeconfigPath: string, clusterPath: string): KubeConfig {
  const admin = loadKcpAdminKubeConfig(adminKubeconfigPath);
  const cluster = admin.getCurrentCluster();
  const user = admin.getCurrentUser();
  if (cluster === null || user === null) throw new Error(`${adminKubeconfigPath}: no cluster or user in context ${KCP_ROOT_CONTEXT}`);
  const name = clusterPath;
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ ...cluster, name, server: `${kcpBaseUrl(admin)}/clusters/${clusterPath}` }, { ...user });
  return kc;
}

/**
 * Creates a universal workspace in root (rxfleet/envtest's createKcpWorkspace) and adds a
 * client-node KubeConfig for it.
 *
 * @example
 * const ws = await createKcpWorkspace(inject('kcp').adminKubeconfigPath);
 * const core = ws.kubeConfig().makeApiClient(CoreV1Api);
 */
export async function createKcpWorkspace(
  adminKubeconfigPath: string,
  name?: string,
  opts: CreateWorkspaceOptions = {},
): Promise<KcpWorkspace> {
  const ws = await createEnvtestKcpWorkspace(adminKubeconfigPath, name, opts);
  return { ...ws, kubeConfig: () => kcpClusterKubeConfig(adminKubeconfigPath, ws.path) };
}

/**
 * Starts kcp (rxfleet/envtest's startKcp) and adds client-node KubeConfigs to its handle.
 *
 * @example
 * const kcp = await startKcp({ extraArgs: ['--etcd-compaction-interval=5s'] });
 * try { const ws = await kcp.createWorkspace(); } finally { await kcp.stop(); }
 */
export async function startKcp(opts: KcpOptions = {}): Promise<KcpHandle> {
  const handle = await startEnvtestKcp(opts);
  // Added to the handle itself (not a copy), so that its `pid` getter stays live.
  return Object.assign(handle, {
    adminKubeConfig: () => loadKcpAdminKubeConfig(handle.adminKubeconfigPath),
    createWorkspace: (name?: string) => createKcpWorkspace(handle.adminKubeconfigPath, name),
  });
}
