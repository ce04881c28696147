// What a sharded kcp (startShardedKcp, kcp-sharded.ts) hands its user: the options, the handle,
// and each of its servers with its fault controls.
import type { Cluster } from '../streams/cluster.js';
import type { KcpPorts } from './kcp.js';
import type { KcpWorkspace } from './kcp-workspace.js';
import type { ProcessControls } from './wait.js';

/**
 * Options of {@link startShardedKcp}.
 *
 * @example
 * ```ts
 * const opts: ShardedKcpOptions = { shards: ['shard-1'], onProgress: (line: string) => console.error(line) };
 * ```
 */
export interface ShardedKcpOptions {
  /** Names of the shards besides `root` (default `['shard-1']`): lower-case letters, digits and `-`. */
  readonly shards?: readonly string[];
  /** Extra `kcp start` flags for every shard. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for each server to be ready (default 240 s). */
  readonly startTimeoutMs?: number;
  /** Keep the root directory on stop() (default false: it is removed). */
  readonly keepRootDir?: boolean;
  /** Told what the start waits for, every 5 s; default silent. */
  readonly onProgress?: (line: string) => void;
}

/**
 * One server of a sharded kcp (a shard, the cache server or the front-proxy) and its fault controls.
 *
 * @example
 * ```ts
 * await kcp.frontProxy.pause(); // nothing reaches any shard through it now
 * kcp.frontProxy.resume();
 * ```
 */
export interface ShardedKcpServer extends ProcessControls {
  /** `https://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Its ports (the front-proxy has no etcd: those are 0). */
  readonly ports: KcpPorts;
  /** Its output, appended to across restarts. */
  readonly logFile: string;
  /** Current process id, if running. */
  readonly pid: number | undefined;
}

/**
 * One shard of a sharded kcp.
 *
 * @example
 * ```ts
 * const shard: KcpShard = kcp.shard('shard-1');
 * await shard.pause(); // its workspaces stop answering; the root shard's keep working
 * shard.resume();
 * ```
 */
export interface KcpShard extends ShardedKcpServer {
  /** `root`, or the name it registered under. */
  readonly name: string;
  /** Its root directory (etcd data, kcp.log). */
  readonly rootDir: string;
  /** A kubeconfig straight to this shard (not through the front-proxy) as kcp's admin; context `root`. */
  readonly adminKubeconfigPath: string;
  /** Stops it (SIGTERM) if running and starts it again on the same directory and ports; waits for /readyz. */
  restart(): Promise<void>;
}

/**
 * A running sharded kcp. Stop it with `stop()`.
 *
 * @example
 * ```ts
 * const kcp: ShardedKcpHandle = await startShardedKcp();
 * const east = await kcp.createWorkspace('east', { shard: 'root' });
 * const west = await kcp.createWorkspace('west', { shard: 'shard-1' });
 * await kcp.stop();
 * ```
 */
export interface ShardedKcpHandle {
  /** Temporary directory holding every server's directory, the PKI and the kubeconfigs. */
  readonly rootDir: string;
  /** kcp's admin through the front-proxy (client certificate); contexts `root` (`<front-proxy>/clusters/root`) and `base`. */
  readonly adminKubeconfigPath: string;
  /** The front-proxy's `https://127.0.0.1:<port>`: where users and controllers go. */
  readonly baseUrl: string;
  /** The shards, `root` first, in the order they were started. */
  readonly shards: readonly KcpShard[];
  /** The kcp cache server every shard replicates shared objects through. */
  readonly cacheServer: ShardedKcpServer;
  /** kcp's front-proxy, at `baseUrl`. */
  readonly frontProxy: ShardedKcpServer;
  /** The shard named `name`; throws ConfigError when there is none. */
  shard(name: string): KcpShard;
  /** A kubeconfig for `<front-proxy>/clusters/<path>` (default `root`) with the admin credentials. */
  kubeconfigYaml(path?: string): string;
  /** An rxfleet Cluster for workspace `path` (default `root`) through the front-proxy; its client is closed by stop(). */
  cluster(path?: string): Cluster;
  /** Creates a universal workspace in root, on `opts.shard` when given (checked: its logical cluster is served by that shard). */
  createWorkspace(name?: string, opts?: { readonly shard?: string }): Promise<KcpWorkspace>;
  /** Starts one more shard named `name` (registered with the root shard, served through the front-proxy). */
  addShard(name: string): Promise<KcpShard>;
  /** Stops every server (front-proxy, shards, cache server), closes the clients, removes the directory. Idempotent. */
  stop(): Promise<void>;
}
