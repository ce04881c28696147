// A sharded kcp for integration tests, as kcp is deployed: a cache server, the root shard, further
// shards and a front-proxy (kcp's cmd/sharded-test-server wires the same), each a process of its
// own with fault controls, its ports held for the handle's life; workspaces placed on a named shard.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../core/config-error.js';
import { ensureBinaries } from './binaries.js';
import { clusterFactory } from './cluster.js';
import { requestJson } from './http.js';
import type { KcpPorts } from './kcp.js';
import { createKcpWorkspace, kcpClusterKubeconfigYaml } from './kcp-workspace.js';
import { writeCertKubeconfig, writeShardedKcpPki } from './kcp-pki.js';
import type { ShardedKcpFiles } from './kcp-sharded-servers.js';
import { cacheServerProcess, frontProxyProcess, shardProcess, startReady, waitReady } from './kcp-sharded-servers.js';
import type { PortReservation } from './ports.js';
import { reservePorts } from './ports.js';
import type { ServerProcess } from './process.js';
import { ServerStartError } from './process.js';
import type { KcpShard, ShardedKcpHandle, ShardedKcpOptions, ShardedKcpServer } from './kcp-sharded-handle.js';
import { processControls, waitUntil } from './wait.js';

const SHARD_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function server(proc: ServerProcess, ports: KcpPorts): ShardedKcpServer {
  return {
    baseUrl: `https://127.0.0.1:${ports.secure}`,
    ports,
    logFile: proc.logFile,
    get pid() {
      return proc.pid;
    },
    ...processControls(proc),
  };
}

async function held3(reservations: PortReservation[]): Promise<KcpPorts> {
  const r = await reservePorts(3);
  reservations.push(r);
  const [secure, etcdClient, etcdPeer] = r.ports;
  if (secure === undefined || etcdClient === undefined || etcdPeer === undefined) throw new Error('unreachable: reservePorts returned too few');
  return { secure, etcdClient, etcdPeer };
}

/**
 * Starts a sharded kcp on 127.0.0.1: the cache server, the root shard and `opts.shards` (default
 * one, `shard-1`), then the front-proxy, each with ports reserved for the handle's life and fresh
 * certificates (one serving CA, client certificates for users); waits until every server answers
 * /readyz and every shard is registered. The binaries (kcp, kcp-front-proxy, kcp-cache-server,
 * one kcp module version) come from the cache, built first when missing (progress on stderr).
 *
 * @example
 * ```ts
 * const kcp = await startShardedKcp({ shards: ['shard-1'] });
 * try {
 *   const ws = await kcp.createWorkspace('team-a', { shard: 'shard-1' });
 *   const teamA = kcp.cluster(ws.path);
 * } finally {
 *   await kcp.stop();
 * }
 * ```
 * @param opts - shard names, extra flags, time-out, progress.
 * @returns the handle.
 * @throws ConfigError when a shard name is invalid or repeated.
 */
export async function startShardedKcp(opts: ShardedKcpOptions = {}): Promise<ShardedKcpHandle> {
  const names = ['root', ...(opts.shards ?? ['shard-1'])];
  const checkName = (n: string, taken: readonly string[]): void => {
    if (!SHARD_NAME.test(n)) throw new ConfigError(`startShardedKcp: shard name "${n}" is invalid: use lower-case letters, digits and '-'`);
    if (taken.includes(n)) throw new ConfigError(`startShardedKcp: shard name "${n}" is used twice (root is always there)`);
  };
  for (const [i, n] of names.entries()) if (i > 0) checkName(n, names.slice(0, i));
  const [kcpBin, proxyBin, cacheBin] = await ensureBinaries(['kcp', 'kcp-front-proxy', 'kcp-cache-server']);
  if (kcpBin === undefined || proxyBin === undefined || cacheBin === undefined) throw new Error('unreachable: ensureBinaries returned too few');
  const timeoutMs = opts.startTimeoutMs ?? 240_000;
  const wait = { timeoutMs, ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }) };
  const rootDir = mkdtempSync(join(tmpdir(), 'rxfleet-kcp-sharded-'));
  const reservations: PortReservation[] = [];
  const procs: ServerProcess[] = [];
  const clusters = clusterFactory();
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    clusters.closeAll();
    // The front-proxy first, the cache server last: nothing is left talking to a server already gone.
    for (const p of [...procs].reverse()) await p.dispose();
    for (const r of reservations) r.release();
    if (opts.keepRootDir !== true) rmSync(rootDir, { recursive: true, force: true });
  };

  try {
    const pkiDir = join(rootDir, 'pki');
    mkdirSync(pkiDir);
    const pki = writeShardedKcpPki(pkiDir);
    const cachePorts = await held3(reservations);
    const shardPorts = new Map<string, KcpPorts>();
    for (const n of names) shardPorts.set(n, await held3(reservations));
    const proxyReservation = await reservePorts(1);
    reservations.push(proxyReservation);
    const proxyPort = proxyReservation.ports[0] ?? 0;
    const frontProxyUrl = `https://127.0.0.1:${proxyPort}`;
    const rootShardUrl = `https://127.0.0.1:${shardPorts.get('root')?.secure ?? 0}`;
    const kubeconfig = (file: string): string => join(rootDir, file);
    const files: ShardedKcpFiles = {
      pki,
      cacheKubeconfig: kubeconfig('cache.kubeconfig'),
      rootShardKubeconfig: kubeconfig('root-shard.kubeconfig'),
      shardsKubeconfig: kubeconfig('shards.kubeconfig'),
      logicalClusterAdminKubeconfig: kubeconfig('logical-cluster-admin.kubeconfig'),
      externalLogicalClusterAdminKubeconfig: kubeconfig('external-logical-cluster-admin.kubeconfig'),
    };
    const ca = pki.servingCaFile;
    writeCertKubeconfig(files.cacheKubeconfig, ca, pki.shardAdmin, [{ name: 'cache', server: `https://127.0.0.1:${cachePorts.secure}` }]);
    writeCertKubeconfig(files.rootShardKubeconfig, ca, pki.shardAdmin, [{ name: 'shard-base', server: rootShardUrl }]);
    writeCertKubeconfig(files.shardsKubeconfig, ca, pki.shardAdmin, [{ name: 'base', server: undefined }]);
    writeCertKubeconfig(files.logicalClusterAdminKubeconfig, ca, pki.logicalClusterAdmin, [{ name: 'base', server: rootShardUrl }]);
    writeCertKubeconfig(files.externalLogicalClusterAdminKubeconfig, ca, pki.externalLogicalClusterAdmin, [{ name: 'base', server: frontProxyUrl }]);
    const adminKubeconfigPath = kubeconfig('admin.kubeconfig');
    writeCertKubeconfig(adminKubeconfigPath, ca, pki.admin, [
      { name: 'root', server: `${frontProxyUrl}/clusters/root` },
      { name: 'base', server: frontProxyUrl },
    ]);

    const cache = cacheServerProcess(cacheBin.path, join(rootDir, 'cache'), cachePorts, pki);
    procs.push(cache);
    await startReady(cache, files.cacheKubeconfig, `https://127.0.0.1:${cachePorts.secure}`, wait);

    const shards: KcpShard[] = [];
    const makeShard = (name: string, ports: KcpPorts): { shard: KcpShard; proc: ServerProcess } => {
      const dir = join(rootDir, `shard-${name}`);
      const proc = shardProcess(kcpBin.path, { name, dir, ports, frontProxyUrl, extraArgs: opts.extraArgs ?? [] }, files);
      procs.push(proc);
      const baseUrl = `https://127.0.0.1:${ports.secure}`;
      const direct = kubeconfig(`shard-${name}-admin.kubeconfig`);
      writeCertKubeconfig(direct, ca, pki.admin, [{ name: 'root', server: `${baseUrl}/clusters/root` }, { name: 'base', server: baseUrl }]);
      const shard: KcpShard = {
        ...server(proc, ports),
        name,
        rootDir: dir,
        adminKubeconfigPath: direct,
        restart: async () => {
          if (stopped) throw new Error('the sharded kcp was stopped; start a new one');
          await proc.terminate();
          await startReady(proc, direct, baseUrl, wait);
        },
      };
      return { shard, proc };
    };
    // Every shard at once, as kcp's sharded test server does: the others wait for the root shard themselves.
    const started = names.map((n) => makeShard(n, shardPorts.get(n) ?? { secure: 0, etcdClient: 0, etcdPeer: 0 }));
    for (const s of started) s.proc.start();
    for (const s of started) {
      await waitReady(s.proc, s.shard.adminKubeconfigPath, s.shard.baseUrl, wait);
      shards.push(s.shard);
    }

    const proxy = frontProxyProcess(proxyBin.path, join(rootDir, 'front-proxy'), proxyPort, rootShardUrl, files);
    procs.push(proxy);
    await startReady(proxy, adminKubeconfigPath, frontProxyUrl, wait);
    const registered = async (expected: readonly string[]): Promise<void> => {
      await waitUntil(
        `shards ${expected.join(', ')} to be registered in root`,
        async () => {
          const res = await requestJson({ file: adminKubeconfigPath, context: 'root' }, 'GET', '/apis/core.kcp.io/v1alpha1/shards');
          if (res.status !== 200) throw new Error(`GET shards: ${res.status} ${res.text.slice(0, 200)}`);
          const items = (res.body as { items?: { metadata?: { name?: string } }[] }).items ?? [];
          const have = new Set(items.map((i) => i.metadata?.name));
          return expected.every((n) => have.has(n)) ? true : undefined;
        },
        { ...wait, intervalMs: 500 },
      );
    };
    await registered(names);

    const shard = (name: string): KcpShard => {
      const s = shards.find((x) => x.name === name);
      if (s === undefined) throw new ConfigError(`sharded kcp: no shard named "${name}" (shards: ${shards.map((x) => x.name).join(', ')})`);
      return s;
    };
    return {
      rootDir,
      adminKubeconfigPath,
      baseUrl: frontProxyUrl,
      shards,
      cacheServer: server(cache, cachePorts),
      frontProxy: server(proxy, { secure: proxyPort, etcdClient: 0, etcdPeer: 0 }),
      shard,
      kubeconfigYaml: (path = 'root') => kcpClusterKubeconfigYaml(adminKubeconfigPath, path),
      cluster: (path = 'root') => clusters.cluster(path, { yaml: kcpClusterKubeconfigYaml(adminKubeconfigPath, path) }),
      createWorkspace: async (name, placement = {}) => {
        const on = placement.shard === undefined ? undefined : shard(placement.shard);
        const ws = await createKcpWorkspace(adminKubeconfigPath, name, on === undefined ? {} : { shard: on.name });
        if (on !== undefined) {
          // A selector kcp ignored would place it elsewhere silently: its LogicalCluster must be on that shard.
          const res = await requestJson({ file: on.adminKubeconfigPath, context: 'base' }, 'GET', `/clusters/${ws.logicalCluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
          if (res.status !== 200) throw new Error(`workspace ${ws.path} (${ws.logicalCluster}) is not on shard ${on.name}: ${res.status} ${res.text.slice(0, 200)}`);
        }
        return ws;
      },
      addShard: async (name) => {
        if (stopped) throw new Error('the sharded kcp was stopped; start a new one');
        checkName(name, shards.map((s) => s.name));
        const s = makeShard(name, await held3(reservations));
        try {
          await startReady(s.proc, s.shard.adminKubeconfigPath, s.shard.baseUrl, wait);
        } catch (err: unknown) {
          await s.proc.killIfRunning();
          throw err;
        }
        shards.push(s.shard);
        await registered([name]);
        return s.shard;
      },
      stop,
    };
  } catch (err: unknown) {
    for (const p of procs) await p.killIfRunning();
    const e = err instanceof ServerStartError || err instanceof ConfigError ? err : new ServerStartError(err instanceof Error ? err.message : String(err));
    await stop();
    throw e;
  }
}
