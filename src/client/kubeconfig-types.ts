// What rxfleet reads from a kubeconfig: plain data, with the field names @kubernetes/client-node
// gives them (`caData`, `skipTLSVerify`, `certFile`…), so code that read client-node's
// `getCurrentCluster()` reads the same names here. Reading a kubeconfig loads no Kubernetes client.
import type { ExecPluginConfig } from './exec-credential.js';

/**
 * One `clusters[]` entry: where the server is and how to verify it.
 *
 * @example
 * ```ts
 * const c: KubeconfigCluster = { name: 'kind-east', server: 'https://127.0.0.1:6443', caData: 'LS0t…', skipTLSVerify: false };
 * ```
 */
export interface KubeconfigCluster {
  /** The entry's name, which contexts refer to. */
  readonly name: string;
  /** The server URL, without a trailing slash. */
  readonly server: string;
  /** `certificate-authority-data`: base64 of the PEM CA bundle. */
  readonly caData?: string;
  /** `certificate-authority`: a PEM CA file, absolute when the kubeconfig came from a file (or a directory was given). */
  readonly caFile?: string;
  /** `insecure-skip-tls-verify`: true only when the kubeconfig says exactly `true`. */
  readonly skipTLSVerify: boolean;
  /** `tls-server-name`: the name to verify the server certificate against, instead of the URL's host. */
  readonly tlsServerName?: string;
  /** `proxy-url`: parsed so it can be refused clearly (rxfleet does not support proxies yet). */
  readonly proxyUrl?: string;
}

/**
 * A `users[].user.auth-provider` entry (gcp, azure, oidc): legacy plugins, run by
 * @kubernetes/client-node, which is loaded only for users that have one.
 *
 * @example
 * ```ts
 * const p: KubeconfigAuthProvider = { name: 'oidc', config: { 'id-token': '…', 'client-id': 'fleet' } };
 * ```
 */
export interface KubeconfigAuthProvider {
  /** Which provider: `oidc`, `gcp`, `azure`, or a `tokenFile` config. */
  readonly name: string;
  /** The provider's settings, as written. */
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * One `users[]` entry: how to authenticate. Files are read when credentials are first needed.
 *
 * @example
 * ```ts
 * const u: KubeconfigUser = { name: 'admin', token: '…' };
 * ```
 */
export interface KubeconfigUser {
  /** The entry's name, which contexts refer to. */
  readonly name: string;
  /** `token`: a bearer token. */
  readonly token?: string;
  /** `tokenFile` (kubectl) or `token-file` (client-node): a file holding a bearer token, read again every minute and after a 401. */
  readonly tokenFile?: string;
  /** `client-certificate-data`: base64 of a PEM client certificate. */
  readonly certData?: string;
  /** `client-certificate`: a PEM client certificate file. */
  readonly certFile?: string;
  /** `client-key-data`: base64 of the PEM key of the client certificate. */
  readonly keyData?: string;
  /** `client-key`: the PEM key file of the client certificate. */
  readonly keyFile?: string;
  /** `username` for basic authentication. */
  readonly username?: string;
  /** `password` for basic authentication. */
  readonly password?: string;
  /** `as`: the user to impersonate (`Impersonate-User`). */
  readonly impersonateUser?: string;
  /** `exec`: a credential plugin, run by rxfleet (see `runExecPlugin`). */
  readonly exec?: ExecPluginConfig;
  /** `auth-provider`: a legacy plugin. */
  readonly authProvider?: KubeconfigAuthProvider;
}

/**
 * One `contexts[]` entry: a cluster, a user and a default namespace, under a name.
 *
 * @example
 * ```ts
 * const ctx: KubeconfigContext = { name: 'kind-east', cluster: 'kind-east', user: 'kind-east' };
 * ```
 */
export interface KubeconfigContext {
  /** The context's name. */
  readonly name: string;
  /** Name of its `clusters[]` entry. */
  readonly cluster: string;
  /** Name of its `users[]` entry; absent when the context names none. */
  readonly user?: string;
  /** Its default namespace; absent when none. */
  readonly namespace?: string;
}

/**
 * A whole kubeconfig as parsed: every entry, whichever context is current.
 *
 * @example
 * ```ts
 * const doc: KubeconfigDocument = { clusters: [], users: [], contexts: [], currentContext: 'kind-east' };
 * ```
 */
export interface KubeconfigDocument {
  readonly clusters: readonly KubeconfigCluster[];
  readonly users: readonly KubeconfigUser[];
  readonly contexts: readonly KubeconfigContext[];
  /** `current-context`; absent when the kubeconfig has none. */
  readonly currentContext?: string;
}

/**
 * One context of a kubeconfig, resolved and checked: what `loadKubeconfig` returns and what
 * `authFromKubeconfig` reads. Frozen; never shared between clusters.
 *
 * @example
 * ```ts
 * const kc = loadKubeconfig(clusterName('east'), { file: 'east.kubeconfig' });
 * if (isRight(kc)) console.log(kc.right.context.name, kc.right.cluster.server);
 * ```
 */
export interface LoadedKubeconfig {
  /** The context used (the given one, or `current-context`). */
  readonly context: KubeconfigContext;
  /** The cluster it names. */
  readonly cluster: KubeconfigCluster;
  /** The user it names. */
  readonly user: KubeconfigUser;
}
