/**
 * rxfleet/envtest: real control planes for your integration tests, the envtest + setup-envtest of
 * rxfleet. `startKubeApiserver()` runs kube-apiserver + etcd, `startKcp()` runs kcp,
 * `startShardedKcp()` runs kcp as it is deployed (shards, cache server, front-proxy), each on
 * 127.0.0.1 with free ports, fresh certificates and tokens, and returns a handle with kubeconfig
 * paths and documents, an rxfleet `Cluster`, fault controls and `stop()`; `installCrds()` installs
 * your CRDs into one and waits until they are served. The binaries are the versions the rxfleet
 * project tests against (hack/versions.env, shipped in the package), cached in
 * `~/.cache/rxfleet/bin` (`RXFLEET_CACHE_DIR`) and built from the Go module proxy on first use
 * (needs Go ≥ 1.26, bash and the openssl CLI; several minutes, progress on stderr). Override a
 * binary with `RXFLEET_KUBE_APISERVER_BIN`, `RXFLEET_ETCD_BIN` or `RXFLEET_KCP_BIN`. docs/testing.md
 * has a vitest global-setup recipe.
 *
 * @example
 * ```ts
 * import { startKubeApiserver } from 'rxfleet/envtest';
 *
 * const kas = await startKubeApiserver();
 * try {
 *   const hub = kas.cluster('hub');
 *   const ns = await kas.createNamespace('test');
 *   // run your controller against hub, assert on what it wrote...
 * } finally {
 *   await kas.stop();
 * }
 * ```
 * @packageDocumentation
 * @module rxfleet/envtest
 */
import '../internal/require-node.js';

export type { Binary, BinaryName } from './binaries.js';
export { cacheDir, ensureBinaries, readVersions, resolveBinary } from './binaries.js';
export type { CrdSource } from './crd-sources.js';
export type { EtcdHandle } from './etcd.js';
export type { CrdTarget, InstallCrdsOptions, InstalledCrd } from './install-crds.js';
export { installCrds } from './install-crds.js';
export type { KubeApiserverHandle, KubeApiserverOptions, KubeApiserverPorts, KubeUser } from './kube-apiserver.js';
export { createNamespaceWith, startKubeApiserver } from './kube-apiserver.js';
export type { KcpHandle, KcpOptions, KcpPorts } from './kcp.js';
export { startKcp } from './kcp.js';
export type { KcpShard, ShardedKcpHandle, ShardedKcpOptions, ShardedKcpServer } from './kcp-sharded-handle.js';
export { startShardedKcp } from './kcp-sharded.js';
export type { CreateWorkspaceOptions, KcpWorkspace } from './kcp-workspace.js';
export { createKcpWorkspace, kcpClusterKubeconfigYaml } from './kcp-workspace.js';
export { ServerStartError } from './process.js';
export type { ProcessControls } from './wait.js';
