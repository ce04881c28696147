// Loading one cluster's kubeconfig, with errors that name the cluster and the cause and never echo
// the file's content (a YAML error snippet could contain a token). Read by rxfleet's own parser:
// @kubernetes/client-node is not even a type here: a caller's KubeConfig object is taken by its
// shape (KubeconfigLike), so rxfleet's .d.ts never import client-node's types (which need @types/ws
// when a user compiles with skipLibCheck: false).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import { parseKubeconfig } from './kubeconfig-parse.js';
import type { KubeconfigCluster, KubeconfigContext, KubeconfigDocument, KubeconfigUser, LoadedKubeconfig } from './kubeconfig-types.js';

/**
 * What rxfleet uses of a @kubernetes/client-node `KubeConfig`: its `exportConfig()`. Any
 * client-node KubeConfig is one.
 *
 * @example
 * ```ts
 * const kc: KubeconfigLike = { exportConfig: () => '{"apiVersion":"v1","kind":"Config"}' };
 * ```
 */
export interface KubeconfigLike {
  /** The kubeconfig as a document (client-node returns JSON, which is YAML). */
  exportConfig(): string;
}

/**
 * Where a cluster's kubeconfig comes from: YAML text, a file, or an already built
 * @kubernetes/client-node KubeConfig (which rxfleet copies through its `exportConfig()`, so the
 * caller's object is never shared between clusters).
 *
 * @example
 * ```ts
 * const src: KubeconfigSource = { file: '/home/me/.kube/config', context: 'kind-east' };
 * ```
 */
export type KubeconfigSource =
  | {
      /** The kubeconfig as YAML text. */
      readonly yaml: string;
      /** Context to use; default the kubeconfig's `current-context`. */
      readonly context?: string;
      /** Directory that relative file paths in the YAML (`certificate-authority`, `client-key`, `tokenFile`…) are relative to; default: the working directory. */
      readonly directory?: string;
    }
  | {
      /** Path of a kubeconfig file, read when the client is created. */
      readonly file: string;
      /** Context to use; default the kubeconfig's `current-context`. */
      readonly context?: string;
    }
  | {
      /** An already loaded @kubernetes/client-node KubeConfig; it is copied, never shared. */
      readonly loaded: KubeconfigLike;
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

function parse(source: KubeconfigSource): KubeconfigDocument {
  if ('yaml' in source) return parseKubeconfig(source.yaml, source.directory);
  // As kubectl and client-node do: paths in a file are relative to the file's directory.
  if ('file' in source) return parseKubeconfig(readFileSync(source.file, 'utf8'), dirname(source.file));
  // exportConfig() is JSON, which YAML reads.
  return parseKubeconfig(source.loaded.exportConfig());
}

/**
 * One context's entries, looked up: the context, and the cluster and user it names (`undefined`
 * when the kubeconfig has no entry of that name). What {@link checkedKubeconfig} checks; the file
 * provider keeps each context's entries this way (parsed once), not as text.
 *
 * @example
 * ```ts
 * const e: KubeconfigContextEntries = { context: { name: 'east', cluster: 'east', user: 'admin' }, cluster: { name: 'east', server: 'https://10.0.0.1:6443', skipTLSVerify: false }, user: { name: 'admin', token: '…' } };
 * ```
 */
export interface KubeconfigContextEntries {
  readonly context: KubeconfigContext;
  readonly cluster: KubeconfigCluster | undefined;
  readonly user: KubeconfigUser | undefined;
}

/**
 * Checks one context's entries as {@link loadKubeconfig} does once it has found them (same checks,
 * same order, same messages): a defined cluster with an http(s) server URL (plain `http:` only with
 * `insecure-skip-tls-verify`), no credentials in the URL, no `proxy-url`, a defined user, an exec
 * plugin with a command, not both a token and a password. The entries are not copied: the result
 * holds them, frozen, so give each cluster entries of its own.
 *
 * @example
 * ```ts
 * const kc = checkedKubeconfig(clusterName('east'), { context, cluster, user: undefined });
 * // Left: 'cluster "east": invalid kubeconfig: context "east" names user "admin", which is not defined'
 * ```
 * @param cluster - the cluster these entries are for (used in errors).
 * @param entries - the context and the cluster and user it names.
 * @param file - the kubeconfig file they came from, named in errors after `invalid kubeconfig`; absent: none named.
 * @returns the checked context, cluster and user, or an `InvalidConfig` error.
 */
export function checkedKubeconfig(cluster: ClusterName, entries: KubeconfigContextEntries, file?: string): Either<KubeError, LoadedKubeconfig> {
  const invalid = (why: string): Either<KubeError, LoadedKubeconfig> => E.left(kubeError('InvalidConfig', cluster, `invalid kubeconfig${file === undefined ? '' : ` ${file}`}: ${why}`));
  const { context, cluster: kcCluster, user } = entries;
  if (kcCluster === undefined) return invalid(`context "${context.name}" names cluster "${context.cluster}", which is not defined`);
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
  if (kcCluster.proxyUrl !== undefined) return invalid(`cluster "${kcCluster.name}" sets proxy-url, which rxfleet does not support yet: remove it or reach the server directly`);
  if (user === undefined) return invalid(`context "${context.name}" names user "${context.user ?? ''}", which is not defined`);
  if (user.exec?.command === '') return invalid(`user "${user.name}" has an exec plugin without a command`);
  if ((user.token !== undefined || user.tokenFile !== undefined) && (user.username !== undefined || user.password !== undefined)) {
    return invalid(`user "${user.name}" sets both a token and a username/password: keep one`);
  }
  return E.right(Object.freeze({ context: Object.freeze(context), cluster: Object.freeze(kcCluster), user: Object.freeze(user) }));
}

/**
 * Loads and validates one cluster's kubeconfig: it must parse, its (given or current) context must
 * exist and name a cluster with an http(s) server URL and a user. Plain `http:` is accepted only with
 * the kubeconfig's own `insecure-skip-tls-verify`, as kubectl does; `proxy-url`, credentials in the
 * URL, an exec plugin without a command and a user with both a token and a password are refused
 * (the checks of `checkedKubeconfig`). Nothing but the kubeconfig itself is read: certificate and token
 * files are read when credentials are first needed.
 *
 * @example
 * ```ts
 * const kc = loadKubeconfig(clusterName('east'), { file: 'east.kubeconfig' });
 * if (E.isLeft(kc)) console.error(kc.left.message); // 'cluster "east": invalid kubeconfig east.kubeconfig: ...'
 * else console.log(kc.right.cluster.server);
 * ```
 * @param cluster - the cluster this kubeconfig is for (used in errors).
 * @param kubeconfig - YAML, a file path, or a KubeConfig, plus an optional context.
 * @returns the context, its cluster and its user (frozen, of its own), or an `InvalidConfig` error.
 */
export function loadKubeconfig(cluster: ClusterName, kubeconfig: KubeconfigSource): Either<KubeError, LoadedKubeconfig> {
  const file = 'file' in kubeconfig ? kubeconfig.file : undefined;
  const invalid = (why: string): Either<KubeError, LoadedKubeconfig> => E.left(kubeError('InvalidConfig', cluster, `invalid kubeconfig${file === undefined ? '' : ` ${file}`}: ${why}`));
  let doc: KubeconfigDocument;
  try {
    doc = parse(kubeconfig);
  } catch (err) {
    return invalid(describe(err));
  }
  const contextName = kubeconfig.context ?? doc.currentContext;
  if (contextName === undefined || contextName === '') return invalid('no current-context and no context given');
  const context = doc.contexts.find((c) => c.name === contextName);
  if (context === undefined) return invalid(`context "${contextName}" not found`);
  // The first entry of a name is the one used, as kubectl does.
  return checkedKubeconfig(cluster, { context, cluster: doc.clusters.find((c) => c.name === context.cluster), user: doc.users.find((u) => u.name === context.user) }, file);
}
