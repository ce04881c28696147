// A real kube-apiserver backed by a real etcd, both on 127.0.0.1 with reserved ports, for integration
// tests: per run a fresh CA and serving certificate, a service-account key, and static tokens for
// two users, "admin" (group system:masters) and "limited" (no group granting anything: RBAC answers
// 403). TLS is always verified against the CA.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '../streams/cluster.js';
import { ensureBinaries } from './binaries.js';
import { makeServingCerts, writeTokenKubeconfig } from './certs.js';
import { clusterFactory } from './cluster.js';
import { startEtcd } from './etcd.js';
import type { EtcdHandle } from './etcd.js';
import { readyzProblem, requestJson } from './http.js';
import type { PortReservation } from './ports.js';
import { reservePorts } from './ports.js';
import { ServerProcess, ServerStartError } from './process.js';
import type { ProcessControls } from './wait.js';
import { processControls, waitUntil } from './wait.js';

/**
 * The two users of an envtest kube-apiserver: `admin` (system:masters) and `limited` (no grants).
 *
 * @example
 * ```ts
 * const user: KubeUser = 'limited';
 * ```
 */
export type KubeUser = 'admin' | 'limited';

/**
 * Options of {@link startKubeApiserver}.
 *
 * @example
 * ```ts
 * const opts: KubeApiserverOptions = { extraArgs: ['--watch-cache-sizes=configmaps#10'], startTimeoutMs: 60_000 };
 * ```
 */
export interface KubeApiserverOptions {
  /** Extra kube-apiserver flags, e.g. `--watch-cache-sizes=configmaps#10`, `--etcd-compaction-interval=10s`. */
  readonly extraArgs?: readonly string[];
  /** Extra etcd flags, e.g. `--auto-compaction-retention=1`. */
  readonly etcdExtraArgs?: readonly string[];
  /** How long to wait for etcd /health and kube-apiserver /readyz (default 120 s each). */
  readonly startTimeoutMs?: number;
  /** Keep the temporary directory on stop() (default false). */
  readonly keepRootDir?: boolean;
  /** Told what the start waits for, every 5 s (e.g. `(line) => console.error(line)`); default silent. */
  readonly onProgress?: (line: string) => void;
}

/**
 * The ports an envtest kube-apiserver and its etcd listen on (127.0.0.1).
 *
 * @example
 * ```ts
 * const ports: KubeApiserverPorts = { secure: 40001, etcdClient: 40002, etcdPeer: 40003 };
 * ```
 */
export interface KubeApiserverPorts {
  /** The API server's HTTPS port. */
  readonly secure: number;
  /** etcd's client port. */
  readonly etcdClient: number;
  /** etcd's peer port. */
  readonly etcdPeer: number;
}

/**
 * A running kube-apiserver + etcd. Stop it with `stop()` (also on failure paths of your tests).
 *
 * @example
 * ```ts
 * const kas: KubeApiserverHandle = await startKubeApiserver();
 * const hub = kas.cluster('hub');
 * await kas.stop();
 * ```
 */
export interface KubeApiserverHandle extends ProcessControls {
  /** Temporary directory holding certs, tokens, kubeconfigs, etcd data and logs. */
  readonly rootDir: string;
  /** `https://127.0.0.1:<secure port>`. */
  readonly baseUrl: string;
  /** The ports it listens on. */
  readonly ports: KubeApiserverPorts;
  /** The server's output (both streams), appended to across restarts. */
  readonly logFile: string;
  /** Current process id, if running. */
  readonly pid: number | undefined;
  /** The etcd under it, with its own fault controls. */
  readonly etcd: EtcdHandle;
  /** Path of the kubeconfig file for `user` (default admin; stable across restarts). */
  kubeconfigPath(user?: KubeUser): string;
  /** The kubeconfig document for `user` (default admin; JSON, which is valid YAML). */
  kubeconfigYaml(user?: KubeUser): string;
  /** An rxfleet Cluster named `name` (default `envtest`) as `user` (default admin); its client is closed by stop(). */
  cluster(name?: string, user?: KubeUser): Cluster;
  /** Creates namespace `<prefix>-<random>` as admin and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
  /** Stops kube-apiserver then etcd (SIGTERM, wait), closes the clients, removes the directory. Idempotent. */
  stop(): Promise<void>;
  /** Restarts kube-apiserver only (same ports, certs, tokens); waits for /readyz. */
  restart(): Promise<void>;
}

/**
 * Creates namespace `<prefix>-<random>` with the credentials of `kubeconfigPath` and returns its
 * name. Needs only the file, so it works from any test worker.
 *
 * @example
 * ```ts
 * const ns = await createNamespaceWith('/tmp/rxfleet-kas-x/admin.kubeconfig', 'team');
 * ```
 */
export async function createNamespaceWith(kubeconfigPath: string, prefix = 'rxfleet'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const res = await requestJson({ file: kubeconfigPath }, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  if (res.status !== 201) throw new Error(`create namespace ${name}: ${res.status} ${res.text.slice(0, 300)}`);
  return name;
}

/**
 * Starts etcd and kube-apiserver (RBAC, static tokens, verified TLS) and waits for /readyz. The
 * binaries come from the cache, built first when missing (see {@link ensureBinaries}).
 *
 * @example
 * ```ts
 * const kas = await startKubeApiserver();
 * try {
 *   const ns = await kas.createNamespace();
 *   const hub = kas.cluster('hub');
 * } finally { await kas.stop(); }
 * ```
 */
export async function startKubeApiserver(opts: KubeApiserverOptions = {}): Promise<KubeApiserverHandle> {
  const [kasBin, etcdBin] = await ensureBinaries(['kube-apiserver', 'etcd']);
  if (kasBin === undefined || etcdBin === undefined) throw new Error('unreachable: ensureBinaries returned too few');
  const startTimeoutMs = opts.startTimeoutMs ?? 120_000;
  const rootDir = mkdtempSync(join(tmpdir(), 'rxfleet-kas-'));
  const clusters = clusterFactory();
  const kubeconfigFile = (user: KubeUser): string => join(rootDir, `${user}.kubeconfig`);
  let etcd: EtcdHandle | undefined;
  let kasProc: ServerProcess | undefined;
  let reservation: PortReservation | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    clusters.closeAll();
    await kasProc?.dispose();
    await etcd?.stop();
    reservation?.release();
    if (opts.keepRootDir !== true) rmSync(rootDir, { recursive: true, force: true });
  };

  try {
    // Held until stop(), across restarts of either server: nothing else is given these ports meanwhile.
    reservation = await reservePorts(3);
    const [secure, etcdClient, etcdPeer] = reservation.ports;
    if (secure === undefined || etcdClient === undefined || etcdPeer === undefined) throw new Error('unreachable: reservePorts returned too few');
    const ports: KubeApiserverPorts = { secure, etcdClient, etcdPeer };
    const baseUrl = `https://127.0.0.1:${secure}`;
    const pki = join(rootDir, 'pki');
    mkdirSync(pki);
    const certs = makeServingCerts(pki);
    const adminToken = randomBytes(24).toString('hex');
    const limitedToken = randomBytes(24).toString('hex');
    const tokenFile = join(pki, 'tokens.csv');
    writeFileSync(
      tokenFile,
      `${adminToken},rxfleet-admin,rxfleet-admin,"system:masters"\n${limitedToken},rxfleet-limited,rxfleet-limited\n`,
      { mode: 0o600 },
    );
    writeTokenKubeconfig(kubeconfigFile('admin'), baseUrl, certs.caFile, 'rxfleet-admin', adminToken);
    writeTokenKubeconfig(kubeconfigFile('limited'), baseUrl, certs.caFile, 'rxfleet-limited', limitedToken);

    etcd = await startEtcd({ binary: etcdBin.path, rootDir, clientPort: etcdClient, peerPort: etcdPeer, extraArgs: opts.etcdExtraArgs ?? [], startTimeoutMs });

    const kas = new ServerProcess({
      name: 'kube-apiserver',
      command: kasBin.path,
      args: [
        `--etcd-servers=${etcd.clientUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${secure}`,
        `--cert-dir=${join(rootDir, 'certs')}`,
        `--tls-cert-file=${certs.certFile}`,
        `--tls-private-key-file=${certs.keyFile}`,
        `--token-auth-file=${tokenFile}`,
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${certs.saPubFile}`,
        `--service-account-signing-key-file=${certs.saKeyFile}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        // 127.0.0.1 may not be written as the kubernetes Service endpoint, and nothing routes to it.
        '--endpoint-reconciler-type=none',
        '--profiling=false',
        ...(opts.extraArgs ?? []),
      ],
      cwd: rootDir,
      logFile: join(rootDir, 'kube-apiserver.log'),
    });
    kasProc = kas;
    const startKas = async (): Promise<void> => {
      kas.start();
      await waitUntil(
        'kube-apiserver /readyz',
        async () => {
          const res = await requestJson({ file: kubeconfigFile('admin') }, 'GET', '/readyz');
          if (res.status === 200) return true;
          throw new Error(readyzProblem(res.status, res.text));
        },
        { timeoutMs: startTimeoutMs, process: kas, intervalMs: 500, ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }) },
      );
    };
    await startKas();

    const etcdHandle = etcd;
    return {
      rootDir,
      baseUrl,
      ports,
      logFile: kas.logFile,
      get pid() {
        return kas.pid;
      },
      etcd: etcdHandle,
      kubeconfigPath: (user: KubeUser = 'admin') => kubeconfigFile(user),
      kubeconfigYaml: (user: KubeUser = 'admin') => readFileSync(kubeconfigFile(user), 'utf8'),
      cluster: (name = 'envtest', user: KubeUser = 'admin') => clusters.cluster(name, { file: kubeconfigFile(user) }),
      createNamespace: (prefix?: string) => createNamespaceWith(kubeconfigFile('admin'), prefix),
      stop,
      restart: async () => {
        if (stopped) throw new Error('kube-apiserver was stopped; start a new one');
        await kas.terminate();
        await startKas();
      },
      ...processControls(kas),
    };
  } catch (err: unknown) {
    // It may have exited already (that may be why the start failed); stop() below ends etcd.
    await kasProc?.killIfRunning();
    const e = err instanceof ServerStartError ? err : new ServerStartError(err instanceof Error ? err.message : String(err));
    await stop();
    throw e;
  }
}
