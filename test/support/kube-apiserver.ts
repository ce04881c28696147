// A real kube-apiserver backed by a real etcd for tests, both on 127.0.0.1 with free ports.
// Per run it generates a CA and serving certificate (openssl CLI), a service-account key
// (node:crypto), and static tokens for two users: "admin" (group system:masters) and "limited"
// (no group granting anything: RBAC answers 403). TLS is always verified against the CA.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveBinary } from './binaries.js';
import { requestJson } from './http.js';
import { freePorts } from './ports.js';
import type { ProcessControls } from './process.js';
import { processControls, ServerProcess, ServerStartError, waitUntil } from './process.js';

export type KubeUser = 'admin' | 'limited';

export interface KubeApiserverOptions {
  /** Extra kube-apiserver flags, e.g. `--watch-cache-sizes=configmaps#10`, `--etcd-compaction-interval=10s`. */
  readonly extraArgs?: readonly string[];
  /** Extra etcd flags, e.g. `--auto-compaction-retention=1`. */
  readonly etcdExtraArgs?: readonly string[];
  /** How long to wait for etcd /health and kube-apiserver /readyz (default 120 s each). */
  readonly startTimeoutMs?: number;
  /** Keep the temporary directory on stop() (default false). */
  readonly keepRootDir?: boolean;
}

export interface KubeApiserverPorts {
  readonly secure: number;
  readonly etcdClient: number;
  readonly etcdPeer: number;
}

/** etcd under the kube-apiserver; `kill()` keeps the data dir, so `restart()` brings it back. */
export interface EtcdHandle extends ProcessControls {
  /** `http://127.0.0.1:<client port>` (plain HTTP on loopback). */
  readonly clientUrl: string;
  readonly dataDir: string;
  readonly pid: number | undefined;
  /** SIGTERM if running, start again on the same data dir and ports, wait for /health. */
  restart(): Promise<void>;
}

export interface KubeApiserverHandle extends ProcessControls {
  /** Temporary directory holding certs, tokens, kubeconfigs, etcd data and logs. */
  readonly rootDir: string;
  /** `https://127.0.0.1:<secure port>`. */
  readonly baseUrl: string;
  readonly ports: KubeApiserverPorts;
  readonly logFile: string;
  readonly pid: number | undefined;
  readonly etcd: EtcdHandle;
  /** Path of the kubeconfig file for `user` (stable across restarts). */
  kubeconfigPath(user?: KubeUser): string;
  /** A fresh KubeConfig for `user` (default admin). */
  kubeConfig(user?: KubeUser): KubeConfig;
  /** The kubeconfig document for `user` (JSON, which is valid YAML). */
  kubeconfigYaml(user?: KubeUser): string;
  /** Creates namespace `<prefix>-<random>` as admin and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
  /** Stops kube-apiserver then etcd (SIGTERM, wait), removes the directory. Idempotent. */
  stop(): Promise<void>;
  /** Restarts kube-apiserver only (same ports, certs, tokens); waits for /readyz. */
  restart(): Promise<void>;
}

function kubeconfigFile(rootDir: string, user: KubeUser): string {
  return join(rootDir, `${user}.kubeconfig`);
}

/** Loads a kubeconfig file written by startKubeApiserver. */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/**
 * Creates namespace `<prefix>-<random>` with the credentials of `kubeconfigPath` and returns its
 * name. Needs only the file, so it works from any test worker.
 */
export async function createNamespaceWith(kubeconfigPath: string, prefix = 'rxfleet'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const res = await requestJson(loadKubeConfig(kubeconfigPath), 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  if (res.status !== 201) throw new Error(`create namespace ${name}: ${res.status} ${res.text.slice(0, 300)}`);
  return name;
}

function openssl(args: readonly string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err: unknown) {
    const stderr =
      typeof err === 'object' && err !== null && 'stderr' in err && Buffer.isBuffer(err.stderr)
        ? err.stderr.toString('utf8')
        : String(err);
    throw new Error(`openssl ${args.join(' ')} failed (is the openssl CLI installed?): ${stderr}`, { cause: err });
  }
}

/** A throwaway CA and a serving certificate for 127.0.0.1/localhost signed by it. */
function makeServingCerts(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '7', '-subj', '/CN=rxfleet-test-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=kube-apiserver'], dir);
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc',
      '',
    ].join('\n'),
  );
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt',
      '-days', '7', '-extfile', 'server.ext'],
    dir,
  );
  return { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') };
}

function writeKubeconfig(path: string, server: string, caFile: string, user: string, token: string): void {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kube-apiserver', server, caData: readFileSync(caFile).toString('base64'), skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: 'kube-apiserver', user }],
    currentContext: user,
  });
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
}

function etcdHealthy(clientUrl: string): Promise<boolean | undefined> {
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest(`${clientUrl}/health`, { timeout: 2_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200 && text.includes('"health":"true"')) resolvePromise(true);
        else reject(new Error(`/health ${res.statusCode}: ${text.slice(0, 200)}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('/health: no answer')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Starts etcd and kube-apiserver (RBAC, static tokens, verified TLS) and waits for /readyz.
 *
 * @example
 * const kas = await startKubeApiserver();
 * try {
 *   const ns = await kas.createNamespace();
 *   const core = kas.kubeConfig('limited').makeApiClient(CoreV1Api); // 403 on most calls
 * } finally { await kas.stop(); }
 */
export async function startKubeApiserver(opts: KubeApiserverOptions = {}): Promise<KubeApiserverHandle> {
  const kasBin = resolveBinary('kube-apiserver');
  const etcdBin = resolveBinary('etcd');
  const startTimeoutMs = opts.startTimeoutMs ?? 120_000;
  const rootDir = mkdtempSync(join(tmpdir(), 'rxfleet-kas-'));
  let etcdProc: ServerProcess | undefined;
  let kasProc: ServerProcess | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await kasProc?.dispose();
    await etcdProc?.dispose();
    if (opts.keepRootDir !== true) rmSync(rootDir, { recursive: true, force: true });
  };

  try {
    const [secure, etcdClient, etcdPeer] = await freePorts(3);
    if (secure === undefined || etcdClient === undefined || etcdPeer === undefined) throw new Error('no free ports');
    const ports: KubeApiserverPorts = { secure, etcdClient, etcdPeer };
    const baseUrl = `https://127.0.0.1:${secure}`;
    const clientUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const pki = join(rootDir, 'pki');
    mkdirSync(pki);
    const certs = makeServingCerts(pki);

    const sa = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const saKey = join(pki, 'sa.key');
    const saPub = join(pki, 'sa.pub');
    writeFileSync(saKey, sa.privateKey, { mode: 0o600 });
    writeFileSync(saPub, sa.publicKey);

    const adminToken = randomBytes(24).toString('hex');
    const limitedToken = randomBytes(24).toString('hex');
    const tokenFile = join(pki, 'tokens.csv');
    writeFileSync(
      tokenFile,
      `${adminToken},rxfleet-admin,rxfleet-admin,"system:masters"\n${limitedToken},rxfleet-limited,rxfleet-limited\n`,
      { mode: 0o600 },
    );
    writeKubeconfig(kubeconfigFile(rootDir, 'admin'), baseUrl, certs.caFile, 'rxfleet-admin', adminToken);
    writeKubeconfig(kubeconfigFile(rootDir, 'limited'), baseUrl, certs.caFile, 'rxfleet-limited', limitedToken);

    const dataDir = join(rootDir, 'etcd-data');
    const etcd = new ServerProcess({
      name: 'etcd',
      command: etcdBin.path,
      args: [
        '--name=rxfleet',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=rxfleet=${peerUrl}`,
        '--initial-cluster-state=new',
        ...(opts.etcdExtraArgs ?? []),
      ],
      cwd: rootDir,
      logFile: join(rootDir, 'etcd.log'),
    });
    etcdProc = etcd;
    const startEtcd = async (): Promise<void> => {
      etcd.start();
      await waitUntil('etcd /health', () => etcdHealthy(clientUrl), { timeoutMs: startTimeoutMs, process: etcd });
    };

    const kas = new ServerProcess({
      name: 'kube-apiserver',
      command: kasBin.path,
      args: [
        `--etcd-servers=${clientUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${secure}`,
        `--cert-dir=${join(rootDir, 'certs')}`,
        `--tls-cert-file=${certs.certFile}`,
        `--tls-private-key-file=${certs.keyFile}`,
        `--token-auth-file=${tokenFile}`,
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${saPub}`,
        `--service-account-signing-key-file=${saKey}`,
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
          const res = await requestJson(loadKubeConfig(kubeconfigFile(rootDir, 'admin')), 'GET', '/readyz');
          if (res.status === 200) return true;
          throw new Error(`/readyz ${res.status}: ${res.text.slice(-300)}`);
        },
        { timeoutMs: startTimeoutMs, process: kas, intervalMs: 500 },
      );
    };

    await startEtcd();
    await startKas();

    const etcdHandle: EtcdHandle = {
      clientUrl,
      dataDir,
      get pid() {
        return etcd.pid;
      },
      ...processControls(etcd),
      restart: async () => {
        await etcd.terminate();
        await startEtcd();
      },
    };

    return {
      rootDir,
      baseUrl,
      ports,
      logFile: kas.logFile,
      get pid() {
        return kas.pid;
      },
      etcd: etcdHandle,
      kubeconfigPath: (user: KubeUser = 'admin') => kubeconfigFile(rootDir, user),
      kubeConfig: (user: KubeUser = 'admin') => loadKubeConfig(kubeconfigFile(rootDir, user)),
      kubeconfigYaml: (user: KubeUser = 'admin') => readFileSync(kubeconfigFile(rootDir, user), 'utf8'),
      createNamespace: (prefix?: string) => createNamespaceWith(kubeconfigFile(rootDir, 'admin'), prefix),
      stop,
      restart: async () => {
        if (stopped) throw new Error('kube-apiserver was stopped; start a new one');
        await kas.terminate();
        await startKas();
      },
      ...processControls(kas),
    };
  } catch (err: unknown) {
    await kasProc?.kill();
    await etcdProc?.kill();
    const e =
      err instanceof ServerStartError ? err : new ServerStartError(err instanceof Error ? err.message : String(err));
    await stop();
    throw e;
  }
}
