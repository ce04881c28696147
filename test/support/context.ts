// What integration tests call to reach the control planes that test/support/global-setup.ts
// started for the run. Everything here is rebuilt from the injected file paths, so it works in
// any test worker.
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKcpWorkspace, loadKcpAdminKubeConfig } from './kcp.js';
import type { KcpWorkspace } from './kcp.js';
import { createNamespaceWith, loadKubeConfig } from './kube-apiserver.js';
import type { KubeUser } from './kube-apiserver.js';

export interface SharedKcp {
  readonly adminKubeconfigPath: string;
  readonly baseUrl: string;
  /** A fresh KubeConfig from the shared kcp's admin.kubeconfig (context `root`). */
  adminKubeConfig(): KubeConfig;
  /** A new universal workspace in root (random name unless given), Ready and serving `default`. */
  createWorkspace(name?: string): Promise<KcpWorkspace>;
}

export interface SharedKubeApiserver {
  readonly baseUrl: string;
  kubeconfigPath(user?: KubeUser): string;
  /** A fresh KubeConfig for `user` (default admin; `limited` gets 403 on resources). */
  kubeConfig(user?: KubeUser): KubeConfig;
  /** The kubeconfig document for `user` (default admin; JSON, which is valid YAML). */
  kubeconfigYaml(user?: KubeUser): string;
  /** Creates namespace `<prefix>-<random>` as admin and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
}

/**
 * The run's shared kcp.
 *
 * @example
 * const ws = await sharedKcp().createWorkspace();
 * const core = ws.kubeConfig().makeApiClient(CoreV1Api);
 */
export function sharedKcp(): SharedKcp {
  const info = inject('kcp');
  return {
    adminKubeconfigPath: info.adminKubeconfigPath,
    baseUrl: info.baseUrl,
    adminKubeConfig: () => loadKcpAdminKubeConfig(info.adminKubeconfigPath),
    createWorkspace: (name?: string) => createKcpWorkspace(info.adminKubeconfigPath, name),
  };
}

/**
 * The run's shared kube-apiserver.
 *
 * @example
 * const ns = await sharedKubeApiserver().createNamespace('cm');
 */
export function sharedKubeApiserver(): SharedKubeApiserver {
  const info = inject('kubeApiserver');
  const path = (user: KubeUser = 'admin'): string =>
    user === 'admin' ? info.adminKubeconfigPath : info.limitedKubeconfigPath;
  return {
    baseUrl: info.baseUrl,
    kubeconfigPath: path,
    kubeConfig: (user?: KubeUser) => loadKubeConfig(path(user)),
    kubeconfigYaml: (user?: KubeUser) => readFileSync(path(user), 'utf8'),
    createNamespace: (prefix?: string) => createNamespaceWith(info.adminKubeconfigPath, prefix),
  };
}
