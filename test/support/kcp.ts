// A real kcp server (with its embedded etcd) for tests: start, restart on the same root
// directory and ports, kill, pause and resume it, and create workspaces in it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveBinary } from './binaries.js';
import { requestJson, stringField } from './http.js';
import { freePorts } from './ports.js';
import type { ProcessControls } from './process.js';
import { processControls, ServerProcess, ServerStartError, waitUntil } from './process.js';

export interface KcpOptions {
  /** Extra `kcp start` flags, e.g. `--etcd-compaction-interval=10s`, `--watch-cache-sizes=configmaps#10` (kcp v0.28 has no --default-watch-cache-size). */
  readonly extraArgs?: readonly string[];
  /** How long to wait for admin.kubeconfig and /readyz (default 180 s). */
  readonly startTimeoutMs?: number;
  /** Keep the root directory on stop() (default false: it is removed). */
  readonly keepRootDir?: boolean;
}

export interface KcpPorts {
  readonly secure: number;
  readonly etcdClient: number;
  readonly etcdPeer: number;
}

/** A workspace (logical cluster) in kcp's root workspace. */
export interface KcpWorkspace {
  /** The Workspace object's name in root. */
  readonly name: string;
  /** Its path, `root:<name>`. */
  readonly path: string;
  /** Its logical cluster name (`spec.cluster`), as found in objects' `kcp.io/cluster` annotation. */
  readonly logicalCluster: string;
  /** A fresh KubeConfig for `<base>/clusters/root:<name>` with the admin credentials (re-read from disk). */
  kubeConfig(): KubeConfig;
  /** The same as a kubeconfig document (JSON, which is valid YAML). */
  kubeconfigYaml(): string;
}

export interface KcpHandle extends ProcessControls {
  /** Temporary root directory (`--root-directory`); also holds kcp.log. */
  readonly rootDir: string;
  /** `<rootDir>/admin.kubeconfig`, rewritten with a new token at every start. */
  readonly adminKubeconfigPath: string;
  /** `https://127.0.0.1:<secure port>` (no /clusters suffix). */
  readonly baseUrl: string;
  readonly ports: KcpPorts;
  readonly logFile: string;
  /** Current process id, if running. */
  readonly pid: number | undefined;
  /** A fresh KubeConfig re-read from admin.kubeconfig (context `root`: server `<base>/clusters/root`). */
  adminKubeConfig(): KubeConfig;
  /** Creates a universal workspace in root and waits until it is Ready and serves its `default` namespace. */
  createWorkspace(name?: string): Promise<KcpWorkspace>;
  /** SIGTERM, wait for exit, remove the root directory. Idempotent. */
  stop(): Promise<void>;
  /** Stops (SIGTERM) if running, starts again with the same root directory and ports, waits for /readyz. */
  restart(): Promise<void>;
}

const ROOT_CONTEXT = 'root';

/** Loads kcp's admin.kubeconfig with the `root` context selected. */
export function loadKcpAdminKubeConfig(adminKubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfigPath);
  if (kc.getContextObject(ROOT_CONTEXT) !== null) kc.setCurrentContext(ROOT_CONTEXT);
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
  if (cluster === null || user === null) throw new Error(`${adminKubeconfigPath}: no cluster or user in context ${ROOT_CONTEXT}`);
  const name = clusterPath;
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ ...cluster, name, server: `${kcpBaseUrl(admin)}/clusters/${clusterPath}` }, { ...user });
  return kc;
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function randomSuffix(): string {
  return randomBytes(4).toString('hex');
}

export interface CreateWorkspaceOptions {
  /** Total time for creation, Ready and the default namespace (default 120 s). */
  readonly timeoutMs?: number;
}

/**
 * Creates `tenancy.kcp.io/v1alpha1` Workspace `name` (default `ws-<random>`) of type root:universal
 * in root, retrying while kcp refuses during warm-up; waits for `status.phase == Ready` and for
 * the workspace to serve its `default` namespace. Needs only the admin kubeconfig file, so it
 * works from any test worker.
 *
 * @example
 * const ws = await createKcpWorkspace(inject('kcp').adminKubeconfigPath);
 * const core = ws.kubeConfig().makeApiClient(CoreV1Api);
 */
export async function createKcpWorkspace(
  adminKubeconfigPath: string,
  name = `ws-${randomSuffix()}`,
  opts: CreateWorkspaceOptions = {},
): Promise<KcpWorkspace> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1_000, deadline - Date.now());
  const collection = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
  const body = {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    spec: { type: { name: 'universal', path: 'root' } },
  };
  await waitUntil(
    `Workspace ${name} to be accepted`,
    async () => {
      const res = await requestJson(loadKcpAdminKubeConfig(adminKubeconfigPath), 'POST', collection, body);
      if (res.status === 201 || res.status === 200 || res.status === 409) return true;
      throw new Error(`POST ${collection}: ${res.status} ${res.text.slice(0, 300)}`);
    },
    { timeoutMs: left(), intervalMs: 500 },
  );
  const logicalCluster = await waitUntil(
    `Workspace ${name} to be Ready`,
    async () => {
      const res = await requestJson(loadKcpAdminKubeConfig(adminKubeconfigPath), 'GET', `${collection}/${name}`);
      if (res.status !== 200) throw new Error(`GET ${collection}/${name}: ${res.status} ${res.text.slice(0, 300)}`);
      const phase = stringField(res.body, 'status', 'phase');
      const cluster = stringField(res.body, 'spec', 'cluster');
      if (phase === 'Ready' && cluster !== undefined && cluster !== '') return cluster;
      throw new Error(`phase=${phase ?? '(none)'} cluster=${cluster ?? '(none)'}`);
    },
    { timeoutMs: left(), intervalMs: 250 },
  );
  const path = `root:${name}`;
  const kubeConfig = (): KubeConfig => kcpClusterKubeConfig(adminKubeconfigPath, path);
  await waitUntil(
    `workspace ${path} to serve namespace default`,
    async () => {
      const res = await requestJson(kubeConfig(), 'GET', '/api/v1/namespaces/default');
      if (res.status === 200) return true;
      throw new Error(`GET namespaces/default: ${res.status} ${res.text.slice(0, 200)}`);
    },
    { timeoutMs: left(), intervalMs: 250 },
  );
  return { name, path, logicalCluster, kubeConfig, kubeconfigYaml: () => kubeConfig().exportConfig() };
}

/**
 * Starts `kcp start` on 127.0.0.1 with a fresh root directory under the OS temp dir and free
 * ports, and waits until admin.kubeconfig exists and /readyz answers 200 (TLS verified with
 * the kubeconfig's CA, admin token).
 *
 * @example
 * const kcp = await startKcp({ extraArgs: ['--etcd-compaction-interval=5s'] });
 * try { const ws = await kcp.createWorkspace(); } finally { await kcp.stop(); }
 */
export async function startKcp(opts: KcpOptions = {}): Promise<KcpHandle> {
  const bin = resolveBinary('kcp');
  const rootDir = mkdtempSync(join(tmpdir(), 'rxfleet-kcp-'));
  const [secure, etcdClient, etcdPeer] = await freePorts(3);
  if (secure === undefined || etcdClient === undefined || etcdPeer === undefined) throw new Error('no free ports');
  const ports: KcpPorts = { secure, etcdClient, etcdPeer };
  const adminKubeconfigPath = join(rootDir, 'admin.kubeconfig');
  const baseUrl = `https://127.0.0.1:${secure}`;
  const startTimeoutMs = opts.startTimeoutMs ?? 180_000;
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
      { timeoutMs: startTimeoutMs, process: proc },
    );
    await waitUntil(
      'kcp /readyz',
      async () => {
        const res = await requestJson(loadKcpAdminKubeConfig(adminKubeconfigPath), 'GET', `${baseUrl}/readyz`);
        if (res.status === 200) return true;
        throw new Error(`/readyz ${res.status}: ${res.text.slice(-300)}`);
      },
      { timeoutMs: startTimeoutMs, process: proc, intervalMs: 500 },
    );
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await proc.dispose();
    if (opts.keepRootDir !== true) rmSync(rootDir, { recursive: true, force: true });
  };

  try {
    await startAndWait();
  } catch (err: unknown) {
    await proc.kill();
    if (err instanceof ServerStartError) {
      await stop();
      throw err;
    }
    const e = proc.startError(err instanceof Error ? err.message : String(err));
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
    adminKubeConfig: () => loadKcpAdminKubeConfig(adminKubeconfigPath),
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
