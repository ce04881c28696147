// The etcd under an envtest kube-apiserver: plain HTTP on loopback, one member, its data in the
// run's directory. `kill()` keeps the data dir, so `restart()` brings the same store back.
import { join } from 'node:path';
import { ServerProcess } from './process.js';
import type { ProcessControls } from './wait.js';
import { processControls, waitUntil } from './wait.js';

// Not `import`: an ESM import of node:http loads Node's bundled undici (see src/client/http1-carrier.ts).
const { request: httpRequest } = process.getBuiltinModule('node:http');

/**
 * A running etcd; `kill()` keeps the data dir, so `restart()` brings it back.
 *
 * @example
 * ```ts
 * const kas = await startKubeApiserver();
 * await kas.etcd.kill(); // the kube-apiserver now answers 5xx on storage calls
 * await kas.etcd.restart();
 * ```
 */
export interface EtcdHandle extends ProcessControls {
  /** `http://127.0.0.1:<client port>` (plain HTTP on loopback). */
  readonly clientUrl: string;
  /** Its data directory (kept by `kill()`). */
  readonly dataDir: string;
  /** Current process id, if running. */
  readonly pid: number | undefined;
  /** SIGTERM if running, start again on the same data dir and ports, wait for /health. */
  restart(): Promise<void>;
  /** SIGTERM, wait, close the log file. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Where and how {@link startEtcd} runs etcd.
 *
 * @example
 * ```ts
 * const opts: EtcdOptions = { binary: '/root/.cache/rxfleet/bin/etcd-v3.6.16', rootDir: '/tmp/x', clientPort: 2379, peerPort: 2380, extraArgs: [], startTimeoutMs: 60_000 };
 * ```
 */
export interface EtcdOptions {
  readonly binary: string;
  /** Holds `etcd-data/` and `etcd.log`. */
  readonly rootDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly extraArgs: readonly string[];
  readonly startTimeoutMs: number;
}

function healthy(clientUrl: string): Promise<boolean | undefined> {
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
 * Starts a one-member etcd on 127.0.0.1 and waits for /health.
 *
 * @example
 * ```ts
 * const etcd = await startEtcd({ binary: resolveBinary('etcd').path, rootDir: '/tmp/x', clientPort: 2379, peerPort: 2380, extraArgs: [], startTimeoutMs: 60_000 });
 * await etcd.stop();
 * ```
 */
export async function startEtcd(opts: EtcdOptions): Promise<EtcdHandle> {
  const clientUrl = `http://127.0.0.1:${opts.clientPort}`;
  const peerUrl = `http://127.0.0.1:${opts.peerPort}`;
  const dataDir = join(opts.rootDir, 'etcd-data');
  const proc = new ServerProcess({
    name: 'etcd',
    command: opts.binary,
    args: [
      '--name=rxfleet',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=rxfleet=${peerUrl}`,
      '--initial-cluster-state=new',
      ...opts.extraArgs,
    ],
    cwd: opts.rootDir,
    logFile: join(opts.rootDir, 'etcd.log'),
  });
  const start = async (): Promise<void> => {
    proc.start();
    await waitUntil('etcd /health', () => healthy(clientUrl), { timeoutMs: opts.startTimeoutMs, process: proc });
  };
  try {
    await start();
  } catch (err) {
    await proc.killIfRunning();
    await proc.dispose();
    throw err;
  }
  return {
    clientUrl,
    dataDir,
    get pid() {
      return proc.pid;
    },
    ...processControls(proc),
    restart: async () => {
      await proc.terminate();
      await start();
    },
    stop: () => proc.dispose(),
  };
}
