// Helpers of the fault suite: the shared kube-apiserver reached through a TCP proxy, a recorder of
// what a watch delivered (every name seen, every delete counted), and the writes a fault test
// makes while the fault holds, with the checks that nothing was lost and each delete came once.
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { expect } from 'vitest';
import type { ClusterClientOptions } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import type { WatchEvent, WatchHealth } from '../../src/streams/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { pool } from '../support/pool.js';
import type { HttpFaultProxy } from '../support/http-fault-proxy.js';
import { startHttpFaultProxy } from '../support/http-fault-proxy.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { retrying } from '../support/wait.js';

export { pool };
export { storeMatchesServer } from '../integration/streams-support.js';

/** The shared kube-apiserver's admin kubeconfig with its server URL replaced by `server`. */
export function kubeconfigVia(server: string): string {
  const doc = JSON.parse(sharedKubeApiserver().kubeconfigYaml('admin')) as { clusters: { cluster: { server: string } }[] };
  // The serving certificate's SAN is IP:127.0.0.1, so it verifies on the proxy's port too.
  for (const c of doc.clusters) c.cluster.server = server;
  return JSON.stringify(doc);
}

/** A cluster over `yaml`. */
export function clusterOf(name: string, yaml: string, options: ClusterClientOptions = {}): Cluster {
  const c = createClusterClient(clusterName(name), { yaml }, options);
  if (E.isLeft(c)) throw new Error(c.left.message);
  return { name: c.right.cluster, client: c.right };
}

/** A proxy in front of the shared kube-apiserver, a cluster through it, and one reaching the server directly (for writes and checks). */
export async function proxiedServer(name: string, options: ClusterClientOptions = {}): Promise<{ proxy: TcpProxy; via: Cluster; direct: Cluster; namespace: string }> {
  const server = sharedKubeApiserver();
  const proxy = await startTcpProxy(Number(new URL(server.baseUrl).port));
  return {
    proxy,
    via: clusterOf(name, kubeconfigVia(`https://127.0.0.1:${proxy.port}`), options),
    direct: clusterOf(`${name}-direct`, server.kubeconfigYaml('admin')),
    namespace: await server.createNamespace('faults'),
  };
}

interface KubeconfigDoc {
  clusters: { cluster: Record<string, unknown> }[];
}

/** The shared kube-apiserver's CA certificate (PEM). */
export function serverCaPem(): string {
  const doc = JSON.parse(sharedKubeApiserver().kubeconfigYaml('admin')) as KubeconfigDoc;
  const data = doc.clusters[0]?.cluster['certificate-authority-data'];
  if (typeof data !== 'string') throw new Error('the admin kubeconfig has no certificate-authority-data');
  return Buffer.from(data, 'base64').toString('utf8');
}

/** The admin kubeconfig for plain HTTP to `url` (a proxy on loopback that speaks TLS to the server). */
export function plainHttpKubeconfig(url: string): string {
  const doc = JSON.parse(sharedKubeApiserver().kubeconfigYaml('admin')) as KubeconfigDoc;
  // Plain http needs the kubeconfig's own insecure-skip-tls-verify; a CA would be meaningless beside it.
  for (const c of doc.clusters) {
    delete c.cluster['certificate-authority-data'];
    c.cluster.server = url;
    c.cluster['insecure-skip-tls-verify'] = true;
  }
  return JSON.stringify(doc);
}

/** An HTTP fault proxy in front of the shared kube-apiserver, a cluster through it (and its kubeconfig), and one reaching the server directly. */
export async function httpProxiedServer(name: string, options: ClusterClientOptions = {}): Promise<{ proxy: HttpFaultProxy; via: Cluster; viaYaml: string; direct: Cluster; namespace: string }> {
  const server = sharedKubeApiserver();
  const proxy = await startHttpFaultProxy(server.baseUrl, serverCaPem());
  const viaYaml = plainHttpKubeconfig(proxy.url);
  return {
    proxy,
    via: clusterOf(name, viaYaml, options),
    viaYaml,
    direct: clusterOf(`${name}-direct`, server.kubeconfigYaml('admin')),
    namespace: await server.createNamespace('httpfaults'),
  };
}

/** What a watch delivered: names seen in applied/initApply, data versions seen, deletes per name. */
export interface Recorder {
  readonly seen: Set<string>;
  readonly versions: Map<string, Set<string>>;
  readonly deletes: Map<string, number>;
  readonly health: WatchHealth[];
  readonly onEvent: (ev: WatchEvent<ConfigMap>) => void;
  readonly onHealth: (h: WatchHealth) => void;
  readonly latest: () => WatchHealth | undefined;
}

export function recorder(): Recorder {
  const seen = new Set<string>();
  const versions = new Map<string, Set<string>>();
  const deletes = new Map<string, number>();
  const health: WatchHealth[] = [];
  return {
    seen,
    versions,
    deletes,
    health,
    onEvent: (ev) => {
      if (ev.type === 'applied' || ev.type === 'initApply') {
        const name = ev.object.metadata.name ?? '';
        seen.add(name);
        const v = ev.object.data?.v;
        if (v !== undefined) versions.set(name, (versions.get(name) ?? new Set()).add(v));
      }
      if (ev.type === 'deleted') {
        const name = ev.object.metadata.name ?? '';
        deletes.set(name, (deletes.get(name) ?? 0) + 1);
      }
    },
    onHealth: (h) => health.push(h),
    latest: () => health.at(-1),
  };
}

/** The writes of one fault test: a set made before, and creates, updates and deletes made during the fault. */
export interface Workload {
  readonly label: string;
  readonly before: readonly string[];
  /** Creates `before`, each with data v=1. */
  prepare(): Promise<void>;
  /** Creates `n` new objects, updates the first quarter of `before` to v=2, deletes the last half of `before` and (unless `transient` is false) the first two new ones. */
  during(): Promise<void>;
  /** Nothing lost: every created name seen, every update seen, each delete exactly once, no other delete. */
  verify(rec: Recorder): void;
}

/**
 * `transient: false` leaves the new objects alone: a watch that is down for the whole of `during`
 * and catches up by relisting cannot see an object that came and went meanwhile (nor could any
 * client), so such a test deletes only objects that existed before.
 */
export function workload(direct: Cluster, namespace: string, label: string, size = 12, fresh = 10, { transient = true } = {}): Workload {
  const before = Array.from({ length: size }, (_, i) => `${label}-old-${i}`);
  const created = Array.from({ length: fresh }, (_, i) => `${label}-new-${i}`);
  const updated = before.slice(0, Math.floor(size / 4));
  const removed = [...before.slice(size / 2), ...(transient ? created.slice(0, 2) : [])];
  const cm = (name: string, v: string): ConfigMap => ({ metadata: { name, namespace, labels: { fault: label } }, data: { v } });
  const client = direct.client;
  return {
    label: `fault=${label}`,
    before,
    prepare: () =>
      pool(before, 6, async (name) => {
        await retrying(`create ${name}`, () => client.create(configMaps, cm(name, '1')));
      }),
    async during() {
      // In order, so a create precedes its delete; the watch must deliver both.
      for (const name of created) await retrying(`create ${name}`, () => client.create(configMaps, cm(name, '1')));
      for (const name of updated) await retrying(`update ${name}`, () => client.patch(configMaps, name, { data: { v: '2' } }, { namespace, type: 'merge' }));
      for (const name of removed) await retrying(`delete ${name}`, () => client.delete(configMaps, name, { namespace }));
    },
    verify(rec) {
      for (const name of [...before, ...created]) expect(rec.seen.has(name), `${name} seen`).toBe(true);
      for (const name of updated) expect([...(rec.versions.get(name) ?? [])], `versions of ${name}`).toContain('2');
      for (const name of removed) expect(rec.deletes.get(name), `deletes of ${name}`).toBe(1);
      const unexpected = [...rec.deletes.keys()].filter((n) => !removed.includes(n));
      expect(unexpected, 'deletes of objects nobody deleted').toEqual([]);
    },
  };
}

/** A pino logger for `run()` whose JSON lines are collected, parsed, in `lines`. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the fields it reads of each line
export function capturedLogs<L>(): { readonly lines: L[]; readonly logger: Logger } {
  const lines: L[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l !== '') lines.push(JSON.parse(l) as L);
      cb();
    },
  });
  return { lines, logger: pino(sink) };
}
