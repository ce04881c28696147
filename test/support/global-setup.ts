// vitest globalSetup of the integration project: starts ONE kcp and ONE kube-apiserver (+ etcd)
// for the whole run and hands tests their connection info (file paths and URLs only, which
// cross into the test workers). Tests read it through test/support/context.ts.
import type { TestProject } from 'vitest/node';
import { startKcp } from './kcp.js';
import type { KcpHandle } from './kcp.js';
import { startKubeApiserver } from './kube-apiserver.js';
import type { KubeApiserverHandle } from './kube-apiserver.js';

/** What tests get about the shared kcp. */
export interface SharedKcpInfo {
  /** admin.kubeconfig of the shared kcp (context `root`). Not rewritten during the run: nobody restarts it. */
  readonly adminKubeconfigPath: string;
  /** `https://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  readonly rootDir: string;
}

/** What tests get about the shared kube-apiserver. */
export interface SharedKubeApiserverInfo {
  /** Kubeconfig of user rxfleet-admin (group system:masters). */
  readonly adminKubeconfigPath: string;
  /** Kubeconfig of user rxfleet-limited (no RBAC grants: 403 on resources). */
  readonly limitedKubeconfigPath: string;
  /** `https://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  readonly rootDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    kcp: SharedKcpInfo;
    kubeApiserver: SharedKubeApiserverInfo;
  }
}

/**
 * Starts both control planes in parallel; the returned teardown stops them and removes their
 * directories. A failed start stops whatever did start and rethrows with the server's log tail.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await Promise.allSettled([startKcp(), startKubeApiserver()]);
  const [kcpResult, kasResult] = started;
  const kcp: KcpHandle | undefined = kcpResult.status === 'fulfilled' ? kcpResult.value : undefined;
  const kas: KubeApiserverHandle | undefined = kasResult.status === 'fulfilled' ? kasResult.value : undefined;
  const teardown = async (): Promise<void> => {
    await Promise.all([kcp?.stop(), kas?.stop()]);
  };
  if (kcp === undefined || kas === undefined) {
    await teardown();
    const reasons = started
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => (r.reason instanceof Error ? r.reason.message : String(r.reason)));
    throw new Error(`integration control planes failed to start:\n${reasons.join('\n\n')}`);
  }
  project.provide('kcp', { adminKubeconfigPath: kcp.adminKubeconfigPath, baseUrl: kcp.baseUrl, rootDir: kcp.rootDir });
  project.provide('kubeApiserver', {
    adminKubeconfigPath: kas.kubeconfigPath('admin'),
    limitedKubeconfigPath: kas.kubeconfigPath('limited'),
    baseUrl: kas.baseUrl,
    rootDir: kas.rootDir,
  });
  return teardown;
}
