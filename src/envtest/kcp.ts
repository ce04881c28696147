// A real kcp server (with its embedded etcd) for integration tests: start, restart on the same
// root directory and ports, kill, pause and resume it, and create workspaces in it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '../streams/cluster.js';
import { ensureBinaries } from './binaries.js';
import { clusterFactory } from './cluster.js';
import { readyzProblem, requestJson } from './http.js';
import { createKcpWorkspace, KCP_ROOT_CONTEXT, kcpClusterKubeconfigYaml } from './kcp-workspace.js';
import type { KcpWorkspace } from './kcp-workspace.js';
import { reservePorts } from './ports.js';
import { ServerProcess, ServerStartError } from './process.js';
import type { ProcessControls } from './wait.js';
import { processControls, waitUntil } from './wait.js';

/**
 * Options of {@link startKcp}.
 *
 * @example
 * ```ts
 * const opts: KcpOptions = { extraArgs: ['--etcd-compaction-interval=10s'] };
 * ```
 */
export interface KcpOptions {
  /** Extra `kcp start` flags, e.g. `--etcd-compaction-interval=10s`, `--watch-cache-sizes=configmaps#10` (kcp v0.28 has no --default-watch-cache-size). */
  readonly extraArgs?: readonly string[];
  /** How long to wait for admin.kubeconfig and /readyz (default 180 s). */
  readonly startTimeoutMs?: number;
  /** Keep the root directory on stop() (default false: it is removed). */
  readonly keepRootDir?: boolean;
  /** Told what the start waits for, every 5 s (e.g. `(line) => console.error(line)`); default silent. */
  readonly onProgress?: (line: string) => void;
}

/**
 * The ports an envtest kcp listens on (127.0.0.1).
 *
 * @example
 * ```ts
 * const ports: KcpPorts = { secure: 40001, etcdClient: 40002, etcdPeer: 40003 };
 * ```
 */
export interface KcpPorts {
  /** The API server's HTTPS port. */
  readonly secure: number;
  /** etcd's client port. */
  readonly etcdClient: number;
  /** etcd's peer port. */
  readonly etcdPeer: number;
}

/**
 * A running kcp. Stop it with `stop()`.
 *
 * @example
 * ```ts
 * const kcp: KcpHandle = await startKcp();
 * const ws = await kcp.createWorkspace('team-a');
 * const teamA = kcp.cluster(ws.path);
 * await kcp.stop();
 * ```
 */
export interface KcpHandle extends ProcessControls {
  /** Temporary root directory (`--root-directory`); also holds kcp.log. */
  readonly rootDir: string;
  /** `<rootDir>/admin.kubeconfig`, rewritten with a new token at every start (context `root`). */
  readonly adminKubeconfigPath: string;
  /** `https://127.0.0.1:<secure port>` (no /clusters suffix). */
  readonly baseUrl: string;
  /** The ports it listens on. */
  readonly ports: KcpPorts;
  /** The server's output (both streams), appended to across restarts. */
  readonly logFile: string;
  /** Current process id, if running. */
  readonly pid: number | undefined;
  /** A kubeconfig for `<base>/clusters/<path>` (default `root`) with the admin credentials (JSON, valid YAML). */
  kubeconfigYaml(path?: string): string;
  /** An rxfleet Cluster for workspace `path` (default `root`), named after it; its client is closed by stop(). */
  cluster(path?: string): Cluster;
  /** Creates a universal workspace in root and waits until it is Ready and serves its `default` namespace. */
  createWorkspace(name?: string): Promise<KcpWorkspace>;
  /** SIGTERM, wait for exit, close the clients, remove the root directory. Idempotent. */
  stop(): Promise<void>;
  /** Stops (SIGTERM) if running, starts again with the same root directory and ports (still reserved), waits for /readyz. */
  restart(): Promise<void>;
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/**
 * Starts `kcp start` on 127.0.0.1 with a fresh root directory under the OS temp dir and ports
 * reserved for the handle's life (the same ones after a restart), and waits until admin.kubeconfig
 * exists and /readyz answers 200 (TLS verified with the kubeconfig's CA, admin token). The binary
 * comes from the cache, built first when missing.
 *
 * @example
 * ```ts
 * const kcp = await startKcp({ extraArgs: ['--etcd-compaction-interval=5s'] });
 * try { const ws = await kcp.createWorkspace(); } finally { await kcp.stop(); }
 * ```
 */
export async function startKcp(opts: KcpOptions = {}): Promise<KcpHandle> {
  const [bin] = await ensureBinaries(['kcp']);
  if (bin === undefined) throw new Error('unreachable: ensureBinaries returned nothing');
  // Held until stop(), across restarts: nothing else is given these ports while kcp is down.
  const reservation = await reservePorts(3);
  const [secure, etcdClient, etcdPeer] = reservation.ports;
  if (secure === undefined || etcdClient === undefined || etcdPeer === undefined) throw new Error('unreachable: reservePorts returned too few');
  const rootDir = mkdtempSync(join(tmpdir(), 'rxfleet-kcp-'));
  const ports: KcpPorts = { secure, etcdClient, etcdPeer };
  const adminKubeconfigPath = join(rootDir, 'admin.kubeconfig');
  const baseUrl = `https://127.0.0.1:${secure}`;
  const startTimeoutMs = opts.startTimeoutMs ?? 180_000;
  const clusters = clusterFactory();
  const proc = new ServerProcess({
    name: 'kcp',
    command: bin.path,
    args: [
      'start',
      `--root-directory=${rootDir}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${secure}`,
      `--embedded-etcd-client-port=${etcdClient}`,
      `--embedded-etcd-peer-port=${etcdPeer}`,
      ...(opts.extraArgs ?? []),
    ],
    cwd: rootDir,
    logFile: join(rootDir, 'kcp.log'),
  });
  let stopped = false;
  const progress = opts.onProgress === undefined ? {} : { onProgress: opts.onProgress };

  const startAndWait = async (): Promise<void> => {
    // admin.kubeconfig is rewritten with a new kcp-admin token at each start: wait for the new
    // one. (Do not delete the old one: kcp reads the shard-admin token back from it.)
    const previous = readIfExists(adminKubeconfigPath);
    proc.start();
    await waitUntil(
      previous === undefined ? 'admin.kubeconfig' : 'admin.kubeconfig to be rewritten',
      () => {
        const now = readIfExists(adminKubeconfigPath);
        return Promise.resolve(now !== undefined && now !== previous ? true : undefined);
      },
      { timeoutMs: startTimeoutMs, process: proc, ...progress },
    );
    await waitUntil(
      'kcp /readyz',
      async () => {
        const res = await requestJson({ file: adminKubeconfigPath, context: KCP_ROOT_CONTEXT }, 'GET', `${baseUrl}/readyz`);
        if (res.status === 200) return true;
        throw new Error(readyzProblem(res.status, res.text));
      },
      { timeoutMs: startTimeoutMs, process: proc, intervalMs: 500, ...progress },
    );
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    clusters.closeAll();
    await proc.dispose();
    reservation.release();
    if (opts.keepRootDir !== true) rmSync(rootDir, { recursive: true, force: true });
  };

  try {
    await startAndWait();
  } catch (err: unknown) {
    await proc.killIfRunning();
    const e = err instanceof ServerStartError ? err : proc.startError(err instanceof Error ? err.message : String(err));
    await stop();
    throw e;
  }

  return {
    rootDir,
    adminKubeconfigPath,
    baseUrl,
    ports,
    logFile: proc.logFile,
    get pid() {
      return proc.pid;
    },
    kubeconfigYaml: (path = 'root') => kcpClusterKubeconfigYaml(adminKubeconfigPath, path),
    cluster: (path = 'root') => clusters.cluster(path, { yaml: kcpClusterKubeconfigYaml(adminKubeconfigPath, path) }),
    createWorkspace: (name?: string) => createKcpWorkspace(adminKubeconfigPath, name),
    stop,
    restart: async () => {
      if (stopped) throw new Error('kcp was stopped; start a new one');
      await proc.terminate();
      await startAndWait();
    },
    ...processControls(proc),
  };
}
