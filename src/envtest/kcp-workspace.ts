// Workspaces (logical clusters) in an envtest kcp: create one in root, wait until it is Ready and
// serves its `default` namespace, and describe it as a kubeconfig for kcp's admin user.
import { randomBytes } from 'node:crypto';
import { loadKubeconfig } from '../client/kubeconfig.js';
import type { KubeconfigSource } from '../client/kubeconfig.js';
import { clusterName } from '../core/cluster.js';
import { isLeft } from '../core/either.js';
import { requestJson, stringField } from './http.js';
import { waitUntil } from './wait.js';

/**
 * The context of kcp's admin.kubeconfig whose server is `<base>/clusters/root`.
 *
 * @example
 * ```ts
 * const source = { file: '/tmp/rxfleet-kcp-x/admin.kubeconfig', context: KCP_ROOT_CONTEXT };
 * ```
 */
export const KCP_ROOT_CONTEXT = 'root';

/**
 * A workspace in kcp's root workspace.
 *
 * @example
 * ```ts
 * const ws: KcpWorkspace = await createKcpWorkspace('/tmp/rxfleet-kcp-x/admin.kubeconfig');
 * const source = { yaml: ws.kubeconfigYaml() };
 * ```
 */
export interface KcpWorkspace {
  /** The Workspace object's name in root. */
  readonly name: string;
  /** Its path, `root:<name>`. */
  readonly path: string;
  /** Its logical cluster name (`spec.cluster`), as found in objects' `kcp.io/cluster` annotation. */
  readonly logicalCluster: string;
  /** A kubeconfig for `<base>/clusters/root:<name>` with the admin credentials (re-read from disk; JSON, which is valid YAML). */
  kubeconfigYaml(): string;
}

/**
 * A kubeconfig document (JSON) for `<base>/clusters/<clusterPath>` with the admin user of kcp's
 * admin.kubeconfig.
 *
 * @example
 * ```ts
 * const yaml = kcpClusterKubeconfigYaml('/tmp/rxfleet-kcp-x/admin.kubeconfig', 'root:team-a');
 * ```
 */
export function kcpClusterKubeconfigYaml(adminKubeconfigPath: string, clusterPath: string): string {
  const loaded = loadKubeconfig(clusterName(clusterPath), { file: adminKubeconfigPath, context: KCP_ROOT_CONTEXT });
  if (isLeft(loaded)) throw new Error(loaded.left.message);
  const { cluster, user } = loaded.right;
  const server = `${new URL(cluster.server).origin}/clusters/${clusterPath}`;
  const c: Record<string, unknown> = { server };
  if (cluster.caData !== undefined) c['certificate-authority-data'] = cluster.caData;
  if (cluster.caFile !== undefined) c['certificate-authority'] = cluster.caFile;
  const u: Record<string, unknown> = {};
  if (user.token !== undefined) u.token = user.token;
  if (user.certData !== undefined) u['client-certificate-data'] = user.certData;
  if (user.keyData !== undefined) u['client-key-data'] = user.keyData;
  if (user.certFile !== undefined) u['client-certificate'] = user.certFile;
  if (user.keyFile !== undefined) u['client-key'] = user.keyFile;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterPath, cluster: c }],
    users: [{ name: user.name, user: u }],
    contexts: [{ name: clusterPath, context: { cluster: clusterPath, user: user.name } }],
    'current-context': clusterPath,
    preferences: {},
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Options of {@link createKcpWorkspace}.
 *
 * @example
 * ```ts
 * const opts: CreateWorkspaceOptions = { timeoutMs: 60_000 };
 * ```
 */
export interface CreateWorkspaceOptions {
  /** Total time for creation, Ready and the default namespace (default 120 s). */
  readonly timeoutMs?: number;
  /**
   * The shard to place it on, by name (`root`, or a shard of a sharded kcp): the Workspace's
   * `spec.location.selector` matches the `name` label kcp puts on every Shard. Default: kcp chooses.
   */
  readonly shard?: string;
}

/**
 * Creates `tenancy.kcp.io/v1alpha1` Workspace `name` (default `ws-<random>`) of type root:universal
 * in root, retrying while kcp refuses during warm-up; waits for `status.phase == Ready` and for
 * the workspace to serve its `default` namespace. Needs only the admin kubeconfig file, so it
 * works from any test worker.
 *
 * @example
 * ```ts
 * const ws = await createKcpWorkspace('/tmp/rxfleet-kcp-x/admin.kubeconfig', 'team-a');
 * ```
 */
export async function createKcpWorkspace(
  adminKubeconfigPath: string,
  name = `ws-${randomBytes(4).toString('hex')}`,
  opts: CreateWorkspaceOptions = {},
): Promise<KcpWorkspace> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1_000, deadline - Date.now());
  const admin: KubeconfigSource = { file: adminKubeconfigPath, context: KCP_ROOT_CONTEXT };
  const collection = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
  const body = {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    spec: {
      type: { name: 'universal', path: 'root' },
      ...(opts.shard === undefined ? {} : { location: { selector: { matchLabels: { name: opts.shard } } } }),
    },
  };
  await waitUntil(
    `Workspace ${name} to be accepted`,
    async () => {
      const res = await requestJson(admin, 'POST', collection, body);
      if (res.status === 201 || res.status === 200 || res.status === 409) return true;
      throw new Error(`POST ${collection}: ${res.status} ${res.text.slice(0, 300)}`);
    },
    { timeoutMs: left(), intervalMs: 500 },
  );
  const logicalCluster = await waitUntil(
    `Workspace ${name} to be Ready`,
    async () => {
      const res = await requestJson(admin, 'GET', `${collection}/${name}`);
      if (res.status !== 200) throw new Error(`GET ${collection}/${name}: ${res.status} ${res.text.slice(0, 300)}`);
      const phase = stringField(res.body, 'status', 'phase');
      const cluster = stringField(res.body, 'spec', 'cluster');
      if (phase === 'Ready' && cluster !== undefined && cluster !== '') return cluster;
      throw new Error(`phase=${phase ?? '(none)'} cluster=${cluster ?? '(none)'}`);
    },
    { timeoutMs: left(), intervalMs: 250 },
  );
  const path = `root:${name}`;
  const kubeconfigYaml = (): string => kcpClusterKubeconfigYaml(adminKubeconfigPath, path);
  await waitUntil(
    `workspace ${path} to serve namespace default`,
    async () => {
      const res = await requestJson({ yaml: kubeconfigYaml() }, 'GET', '/api/v1/namespaces/default');
      if (res.status === 200) return true;
      throw new Error(`GET namespaces/default: ${res.status} ${res.text.slice(0, 200)}`);
    },
    { timeoutMs: left(), intervalMs: 250 },
  );
  return { name, path, logicalCluster, kubeconfigYaml };
}
