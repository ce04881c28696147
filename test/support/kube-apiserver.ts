// The kube-apiserver + etcd of the tests: rxfleet/envtest's (src/envtest/kube-apiserver.ts), with
// @kubernetes/client-node KubeConfigs added for the tests that drive the server with that client.
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeApiserverHandle as EnvtestKubeApiserverHandle, KubeApiserverOptions, KubeUser } from '../../src/envtest/kube-apiserver.js';
import { startKubeApiserver as startEnvtestKubeApiserver } from '../../src/envtest/kube-apiserver.js';

export type { EtcdHandle } from '../../src/envtest/etcd.js';
export type { KubeApiserverOptions, KubeApiserverPorts, KubeUser } from '../../src/envtest/kube-apiserver.js';
export { createNamespaceWith } from '../../src/envtest/kube-apiserver.js';

export interface KubeApiserverHandle extends EnvtestKubeApiserverHandle {
  /** A fresh client-node KubeConfig for `user` (default admin). */
  kubeConfig(user?: KubeUser): KubeConfig;
}

/** Loads a kubeconfig file written by startKubeApiserver into a client-node KubeConfig. */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/**
 * Starts etcd and kube-apiserver (RBAC, static tokens, verified TLS) and waits for /readyz.
 *
 * @example
 * const kas = await startKubeApiserver();
 * try {
 *   const core = kas.kubeConfig('limited').makeApiClient(CoreV1Api); // 403 on most calls
 * } finally { await kas.stop(); }
 */
export async function startKubeApiserver(opts: KubeApiserverOptions = {}): Promise<KubeApiserverHandle> {
  const handle = await startEnvtestKubeApiserver(opts);
  // Added to the handle itself (not a copy), so that its `pid` getter stays live.
  return Object.assign(handle, { kubeConfig: (user: KubeUser = 'admin') => loadKubeConfig(handle.kubeconfigPath(user)) });
}
