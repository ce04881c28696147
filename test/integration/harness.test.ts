// The test harness itself, against the real servers: the shared kcp and kube-apiserver from
// global-setup, and a private kcp restarted, killed and paused inside the test.
import { describe, expect, test } from 'vitest';
import { ApiException, CoreV1Api, V1Namespace, V1ObjectMeta } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { requestJson } from '../support/http.js';
import { startKcp } from '../support/kcp.js';
import { reservePorts } from '../support/ports.js';
import { threadStates } from '../../src/envtest/stopped.js';

function namespaceNames(kc: KubeConfig): Promise<(string | undefined)[]> {
  return kc
    .makeApiClient(CoreV1Api)
    .listNamespace()
    .then((list) => list.items.map((ns) => ns.metadata?.name));
}

function token(kc: KubeConfig): string | undefined {
  return kc.getCurrentUser()?.token;
}

describe('shared kcp', () => {
  test('two workspaces, each a separate cluster with its own default namespace', async () => {
    const kcp = sharedKcp();
    const [a, b] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace()]);
    expect(a.path).toBe(`root:${a.name}`);
    expect(a.logicalCluster).not.toBe(b.logicalCluster);
    expect(await namespaceNames(a.kubeConfig())).toContain('default');
    expect(await namespaceNames(b.kubeConfig())).toContain('default');

    // Same name in both, each in its own logical cluster.
    const body = new V1Namespace();
    body.metadata = new V1ObjectMeta();
    body.metadata.name = 'only-here';
    await a.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body });
    expect(await namespaceNames(a.kubeConfig())).toContain('only-here');
    expect(await namespaceNames(b.kubeConfig())).not.toContain('only-here');
    await b.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body });
  });
});

describe('shared kube-apiserver', () => {
  test('admin creates a namespace; the limited user is authenticated but forbidden', async () => {
    const kas = sharedKubeApiserver();
    const ns = await kas.createNamespace('harness');
    expect(await namespaceNames(kas.kubeConfig('admin'))).toContain(ns);

    const limited = kas.kubeConfig('limited').makeApiClient(CoreV1Api);
    const err = await limited.readNamespace({ name: ns }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(403);
    // 403, not 401: the token is valid.
    const review = await requestJson(kas.kubeConfig('limited'), 'GET', '/apis');
    expect(review.status).toBe(200);
  });
});

describe('private kcp', () => {
  test('restart() keeps the data, regenerates the admin token, and serves again; kill() and pause() too', async () => {
    const kcp = await startKcp();
    try {
      const ws = await kcp.createWorkspace('persisted');
      const before = token(kcp.adminKubeConfig());
      expect(before).toBeTruthy();

      await kcp.restart();
      const after = token(kcp.adminKubeConfig());
      expect(after).toBeTruthy();
      expect(after).not.toBe(before);
      // The workspace survived; a fresh KubeConfig (new token) reaches it.
      expect(await namespaceNames(ws.kubeConfig())).toContain('default');

      // SIGKILL, then start again on the same root directory and ports.
      await kcp.kill();
      expect(kcp.pid).toBeUndefined();
      // Nothing runs: the fault controls say so instead of signalling nothing.
      await expect(kcp.pause()).rejects.toThrow(/kcp: cannot pause \(SIGSTOP\): not running \(exited: code=null signal=SIGKILL\)/);
      expect(() => {
        kcp.resume();
      }).toThrow(/not running/);
      await expect(kcp.kill()).rejects.toThrow(/not running/);
      // Down, its ports stay its own: no other envtest is given them (nor, outside the kernel's
      // ephemeral range, anything binding port 0), and the restart binds the same ones.
      for (const port of [kcp.ports.secure, kcp.ports.etcdClient, kcp.ports.etcdPeer]) {
        await expect(reservePorts(1, { range: { from: port, to: port }, attempts: 3 })).rejects.toThrow(/no free port/);
      }
      await kcp.restart();
      expect(await namespaceNames(ws.kubeConfig())).toContain('default');

      // SIGSTOP: requests hang until SIGCONT. pause() resolves once every thread has stopped
      // (kill(2) only queues the signal; a request sent before the stop completes is answered).
      const pid = kcp.pid;
      expect(pid).toBeDefined();
      await kcp.pause();
      expect(await threadStates(pid ?? 0)).toMatch(/^[Tt]+$/);
      const stalled = await requestJson(kcp.adminKubeConfig(), 'GET', '/api/v1/namespaces', undefined, 1_000).then(
        () => 'answered',
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      expect(stalled).toMatch(/no answer/);
      kcp.resume();
      expect(await namespaceNames(ws.kubeConfig())).toContain('default');
      expect(kcp.logTail(5)).not.toBe('');
    } finally {
      await kcp.stop();
    }
  }, 600_000);
});
