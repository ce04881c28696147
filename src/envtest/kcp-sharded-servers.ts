// The processes of a sharded kcp and their command lines, wired as kcp's own sharded test server
// (cmd/sharded-test-server) wires them: a cache server every shard replicates through, the root
// shard, further shards that register with the root shard, and a front-proxy that authenticates
// users by client certificate and routes `/clusters/<path>` to the shard holding the workspace.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requestJson, readyzProblem } from './http.js';
import type { ShardedKcpPki } from './kcp-pki.js';
import { ServerProcess } from './process.js';
import { waitUntil } from './wait.js';

/**
 * The ports of one server of a sharded kcp (127.0.0.1); the front-proxy uses `secure` only.
 *
 * @example
 * ```ts
 * const ports: ShardedKcpServerPorts = { secure: 40001, etcdClient: 40002, etcdPeer: 40003 };
 * ```
 */
export interface ShardedKcpServerPorts {
  readonly secure: number;
  readonly etcdClient: number;
  readonly etcdPeer: number;
}

/**
 * The shared files every server of the set is started with.
 *
 * @example
 * ```ts
 * const files: ShardedKcpFiles = { pki, cacheKubeconfig: '/tmp/x/cache.kubeconfig', rootShardKubeconfig: '/tmp/x/root-shard.kubeconfig',
 *   shardsKubeconfig: '/tmp/x/shards.kubeconfig', logicalClusterAdminKubeconfig: '/tmp/x/lca.kubeconfig', externalLogicalClusterAdminKubeconfig: '/tmp/x/elca.kubeconfig' };
 * ```
 */
export interface ShardedKcpFiles {
  readonly pki: ShardedKcpPki;
  /** The cache server, as the shards reach it. */
  readonly cacheKubeconfig: string;
  /** Context `shard-base`: the root shard's base URL as `shard-admin` (non-root shards and the front-proxy read it). */
  readonly rootShardKubeconfig: string;
  /** No server (the front-proxy fills in each shard's): `shard-admin`. */
  readonly shardsKubeconfig: string;
  readonly logicalClusterAdminKubeconfig: string;
  readonly externalLogicalClusterAdminKubeconfig: string;
}

/**
 * The kcp cache server: its own embedded etcd, the set's serving certificate.
 *
 * @example
 * ```ts
 * const proc = cacheServerProcess(bin.path, '/tmp/x/cache', ports, pki);
 * ```
 * @param bin - the kcp-cache-server binary.
 * @param dir - its root directory (made here).
 * @param ports - its ports.
 * @param pki - the set's credentials.
 * @returns the (not started) process.
 */
export function cacheServerProcess(bin: string, dir: string, ports: ShardedKcpServerPorts, pki: ShardedKcpPki): ServerProcess {
  mkdirSync(dir, { recursive: true });
  return new ServerProcess({
    name: 'kcp cache server',
    command: bin,
    args: [
      `--root-directory=${dir}`,
      `--embedded-etcd-directory=${join(dir, 'etcd-server')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${ports.secure}`,
      `--embedded-etcd-client-port=${ports.etcdClient}`,
      `--embedded-etcd-peer-port=${ports.etcdPeer}`,
      `--tls-cert-file=${pki.serving.certFile}`,
      `--tls-private-key-file=${pki.serving.keyFile}`,
    ],
    cwd: dir,
    logFile: join(dir, 'cache-server.log'),
  });
}

/**
 * What one shard is started with.
 *
 * @example
 * ```ts
 * const spec: ShardSpec = { name: 'shard-1', dir: '/tmp/x/shard-1', ports, frontProxyUrl: 'https://127.0.0.1:40010', extraArgs: [] };
 * ```
 */
export interface ShardSpec {
  /** `root` for the root shard. */
  readonly name: string;
  readonly dir: string;
  readonly ports: ShardedKcpServerPorts;
  /** Workspaces' URLs point there (`--shard-external-url`). */
  readonly frontProxyUrl: string;
  readonly extraArgs: readonly string[];
}

/**
 * One kcp shard (`kcp start`) of the set: client certificates through the client CA, the
 * front-proxy's forwarded user through the request-header CA, the shared service-account keys and
 * cache server; a non-root shard registers with the root shard under its name. Its virtual
 * workspaces are served in-process, at its own base URL.
 *
 * @example
 * ```ts
 * const proc = shardProcess(bin.path, spec, files);
 * ```
 * @param bin - the kcp binary.
 * @param spec - its name, directory, ports, the front-proxy's URL and extra flags.
 * @param files - the set's shared files.
 * @returns the (not started) process.
 */
export function shardProcess(bin: string, spec: ShardSpec, files: ShardedKcpFiles): ServerProcess {
  mkdirSync(spec.dir, { recursive: true });
  const { pki } = files;
  const nonRoot = spec.name === 'root' ? [] : [`--shard-name=${spec.name}`, `--root-shard-kubeconfig-file=${files.rootShardKubeconfig}`];
  return new ServerProcess({
    name: `kcp shard ${spec.name}`,
    command: bin,
    args: [
      'start',
      ...nonRoot,
      `--root-directory=${spec.dir}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${spec.ports.secure}`,
      `--embedded-etcd-client-port=${spec.ports.etcdClient}`,
      `--embedded-etcd-peer-port=${spec.ports.etcdPeer}`,
      `--client-ca-file=${pki.clientCaFile}`,
      `--requestheader-client-ca-file=${pki.requestHeaderCaFile}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--service-account-key-file=${pki.saPubFile}`,
      `--service-account-private-key-file=${pki.saKeyFile}`,
      `--service-account-signing-key-file=${pki.saKeyFile}`,
      '--service-account-lookup=false',
      `--shard-base-url=https://127.0.0.1:${spec.ports.secure}`,
      `--shard-external-url=${spec.frontProxyUrl}`,
      `--tls-cert-file=${pki.serving.certFile}`,
      `--tls-private-key-file=${pki.serving.keyFile}`,
      `--logical-cluster-admin-kubeconfig=${files.logicalClusterAdminKubeconfig}`,
      `--external-logical-cluster-admin-kubeconfig=${files.externalLogicalClusterAdminKubeconfig}`,
      `--shard-client-cert-file=${pki.shardAdmin.certFile}`,
      `--shard-client-key-file=${pki.shardAdmin.keyFile}`,
      `--shard-virtual-workspace-ca-file=${pki.servingCaFile}`,
      `--cache-kubeconfig=${files.cacheKubeconfig}`,
      ...spec.extraArgs,
    ],
    cwd: spec.dir,
    logFile: join(spec.dir, 'kcp.log'),
  });
}

/**
 * The front-proxy: `/clusters/` routed by its index of workspaces and shards (read through the
 * root shard), `/services/` (virtual workspaces) to the root shard; the caller's user and groups
 * forwarded with the request-header client certificate.
 *
 * @example
 * ```ts
 * const proc = frontProxyProcess(bin.path, '/tmp/x/front-proxy', 40010, 'https://127.0.0.1:40001', files);
 * ```
 * @param bin - the kcp-front-proxy binary.
 * @param dir - its root directory (made here; holds mapping.yaml).
 * @param port - its HTTPS port.
 * @param rootShardUrl - the root shard's base URL.
 * @param files - the set's shared files.
 * @returns the (not started) process.
 */
export function frontProxyProcess(bin: string, dir: string, port: number, rootShardUrl: string, files: ShardedKcpFiles): ServerProcess {
  mkdirSync(dir, { recursive: true });
  const { pki } = files;
  const backend = (path: string): Record<string, string> => ({
    path,
    backend: rootShardUrl,
    backend_server_ca: pki.servingCaFile,
    proxy_client_cert: pki.frontProxyClient.certFile,
    proxy_client_key: pki.frontProxyClient.keyFile,
  });
  const mapping = join(dir, 'mapping.yaml');
  // JSON is valid YAML.
  writeFileSync(mapping, `${JSON.stringify([backend('/services/'), backend('/clusters/')], null, 2)}\n`);
  return new ServerProcess({
    name: 'kcp front-proxy',
    command: bin,
    args: [
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--mapping-file=${mapping}`,
      `--root-directory=${dir}`,
      `--root-kubeconfig=${files.rootShardKubeconfig}`,
      `--shards-kubeconfig=${files.shardsKubeconfig}`,
      `--client-ca-file=${pki.clientCaFile}`,
      `--tls-cert-file=${pki.serving.certFile}`,
      `--tls-private-key-file=${pki.serving.keyFile}`,
    ],
    cwd: dir,
    logFile: join(dir, 'front-proxy.log'),
  });
}

/**
 * How long {@link startReady} and {@link waitReady} wait, and who hears about it.
 *
 * @example
 * ```ts
 * const opts: ReadyWaitOptions = { timeoutMs: 180_000, onProgress: (line: string) => console.error(line) };
 * ```
 */
export interface ReadyWaitOptions {
  readonly timeoutMs: number;
  /** Told what is awaited, every 5 s. */
  readonly onProgress?: (line: string) => void;
}

/**
 * Starts `proc` and waits until `<url>/readyz` answers 200 to the kubeconfig's user (TLS verified).
 *
 * @example
 * ```ts
 * await startReady(proc, '/tmp/x/admin.kubeconfig', 'https://127.0.0.1:40001', { timeoutMs: 180_000 });
 * ```
 * @param proc - the server.
 * @param kubeconfig - credentials and CA for the probe.
 * @param url - its base URL.
 * @param opts - time-out and progress.
 */
export async function startReady(proc: ServerProcess, kubeconfig: string, url: string, opts: ReadyWaitOptions): Promise<void> {
  proc.start();
  await waitReady(proc, kubeconfig, url, opts);
}

/**
 * Waits until `<url>/readyz` of a started server answers 200; fails at once if it exits.
 *
 * @example
 * ```ts
 * await waitReady(proc, '/tmp/x/admin.kubeconfig', 'https://127.0.0.1:40001', { timeoutMs: 180_000 });
 * ```
 * @param proc - the server.
 * @param kubeconfig - credentials and CA for the probe.
 * @param url - its base URL.
 * @param opts - time-out and progress.
 */
export async function waitReady(proc: ServerProcess, kubeconfig: string, url: string, opts: ReadyWaitOptions): Promise<void> {
  await waitUntil(
    `${proc.name} /readyz`,
    async () => {
      const res = await requestJson({ file: kubeconfig }, 'GET', `${url}/readyz`);
      if (res.status === 200) return true;
      throw new Error(readyzProblem(res.status, res.text));
    },
    { intervalMs: 500, ...opts, process: proc },
  );
}
