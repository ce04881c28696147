// Loading one cluster's KubeConfig, with errors that name the cluster and the cause and never echo
// the file's content (a YAML error snippet could contain a token).
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';

/**
 * Where a cluster's kubeconfig comes from: YAML text, a file, or an already built KubeConfig
 * (which rxfleet copies, so the caller's object is never shared between clusters).
 *
 * @example
 * ```ts
 * const src: KubeConfigSource = { file: '/home/me/.kube/config', context: 'kind-east' };
 * ```
 */
export type KubeConfigSource =
  | {
      /** The kubeconfig as YAML text. */
      readonly yaml: string;
      /** Context to use; default the kubeconfig's `current-context`. */
      readonly context?: string;
    }
  | {
      /** Path of a kubeconfig file, read when the client is created. */
      readonly file: string;
      /** Context to use; default the kubeconfig's `current-context`. */
      readonly context?: string;
    }
  | {
      /** An already loaded KubeConfig; it is copied, never shared. */
      readonly kubeConfig: KubeConfig;
      /** Context to use; default the kubeconfig's `current-context`. */
      readonly context?: string;
    };

function describe(err: unknown): string {
  // js-yaml errors carry `reason` and `mark` with a snippet of the input; keep only the reason and position.
  if (typeof err === 'object' && err !== null && 'reason' in err && typeof err.reason === 'string') {
    const mark = (err as { mark?: { line?: number; column?: number } }).mark;
    return mark?.line === undefined ? err.reason : `${err.reason} at line ${mark.line + 1}, column ${(mark.column ?? 0) + 1}`;
  }
  if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT') return 'file not found';
  if (err instanceof Error) return err.message.split('\n')[0] ?? 'unknown error';
  return 'unknown error';
}

/**
 * Loads and validates one cluster's KubeConfig: it must parse, its (given or current) context must
 * exist and name a cluster with an http(s) server URL and a user. Plain `http:` is accepted only with
 * the kubeconfig's own `insecure-skip-tls-verify`, as kubectl does.
 *
 * @example
 * ```ts
 * const kc = loadKubeConfig(clusterName('east'), { file: 'east.kubeconfig' });
 * if (E.isLeft(kc)) console.error(kc.left.message); // 'cluster "east": invalid kubeconfig: ...'
 * ```
 * @param cluster - the cluster this kubeconfig is for (used in errors).
 * @param source - YAML, a file path, or a KubeConfig, plus an optional context.
 * @returns a KubeConfig of its own with the context selected, or an `InvalidConfig` error.
 */
export function loadKubeConfig(cluster: ClusterName, source: KubeConfigSource): Either<KubeError, KubeConfig> {
  const invalid = (why: string): Either<KubeError, KubeConfig> =>
    E.left(kubeError('InvalidConfig', cluster, `invalid kubeconfig${'file' in source ? ` ${source.file}` : ''}: ${why}`));
  const kc = new KubeConfig();
  try {
    if ('yaml' in source) kc.loadFromString(source.yaml);
    else if ('file' in source) kc.loadFromFile(source.file);
    else kc.loadFromString(source.kubeConfig.exportConfig());
  } catch (err) {
    return invalid(describe(err));
  }
  const contextName = source.context ?? kc.getCurrentContext();
  if (contextName === '' || (contextName as string | undefined) === undefined) return invalid('no current-context and no context given');
  const context = kc.getContextObject(contextName);
  if (context === null) return invalid(`context "${contextName}" not found`);
  kc.setCurrentContext(contextName);
  const kcCluster = kc.getCurrentCluster();
  if (kcCluster === null) return invalid(`context "${contextName}" names cluster "${context.cluster}", which is not defined`);
  let url: URL;
  try {
    url = new URL(kcCluster.server);
  } catch {
    return invalid(`cluster "${kcCluster.name}" has no valid server URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return invalid(`server URL must be http(s), got ${url.protocol}`);
  if (url.protocol === 'http:' && !kcCluster.skipTLSVerify) {
    return invalid('plain http server URL without insecure-skip-tls-verify: refusing to send credentials unencrypted');
  }
  if (url.username !== '' || url.password !== '') return invalid('credentials in the server URL are not supported');
  if (kcCluster.proxyUrl !== undefined && kcCluster.proxyUrl !== '') return invalid('proxy-url is not supported yet');
  if (kc.getCurrentUser() === null) return invalid(`context "${contextName}" names user "${context.user}", which is not defined`);
  return E.right(kc);
}
