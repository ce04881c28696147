// Credentials of one cluster, taken from its own KubeConfig (tokens, client certificates, token
// files, exec plugins). Nothing here is ever logged or put into an error.
import type { PeerCertificate } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import type { ExecPluginConfig } from './exec-credential.js';
import { execCredentialCache, runExecPlugin } from './exec-credential.js';

/**
 * What one request needs to authenticate and to verify the server. `rejectUnauthorized` is always
 * explicit, so `NODE_TLS_REJECT_UNAUTHORIZED` cannot turn verification off.
 *
 * @example
 * ```ts
 * const creds = await auth.credentials(); // { headers: { Authorization: 'Bearer …' }, rejectUnauthorized: true, … }
 * ```
 */
export interface Credentials {
  /** Headers to add to each request (e.g. `Authorization`); empty when the cluster uses client certificates only. */
  readonly headers: Readonly<Record<string, string>>;
  /** PEM CA bundle to verify the server with; absent means Node's default trusted roots. */
  readonly ca?: Buffer | string;
  /** PEM client certificate for mutual TLS; absent without certificate authentication. */
  readonly cert?: Buffer | string;
  /** PEM private key of `cert`; absent without certificate authentication. */
  readonly key?: Buffer | string;
  /** Server name (SNI) to verify instead of the URL's host, from the kubeconfig's `tls-server-name`; absent when not set. */
  readonly servername?: string;
  /** Whether the server certificate is verified; false only with the kubeconfig's `insecure-skip-tls-verify`. */
  readonly rejectUnauthorized: boolean;
}

/**
 * A source of credentials for one cluster. `invalidate()` drops cached tokens (after a 401).
 *
 * @example
 * ```ts
 * const auth = authFromKubeConfig(kc);
 * await auth.credentials();
 * auth.invalidate(); // next call runs the exec plugin again
 * ```
 */
export interface AuthSource {
  /** The headers and TLS material of the next request (cached tokens are reused until they expire). */
  credentials(): Promise<Credentials>;
  /** Whether tokens can change (exec plugins, token files, auth providers): only then is a 401 worth a retry. */
  readonly dynamic: boolean;
  /** Drops cached tokens, so the next `credentials()` asks again (after a 401). */
  invalidate(): void;
}

interface HttpsScratch {
  headers?: Record<string, string | string[] | number | undefined>;
  ca?: Buffer | string | (Buffer | string)[];
  cert?: Buffer | string | (Buffer | string)[];
  key?: Buffer | string | (Buffer | string)[];
  servername?: string;
  auth?: string;
  agent?: unknown;
  checkServerIdentity?: (host: string, cert: PeerCertificate) => Error | undefined;
}

function single(v: Buffer | string | (Buffer | string)[] | undefined): Buffer | string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The same KubeConfig without the current user's exec entry (rxfleet runs the plugin itself). */
function withoutExec(kc: KubeConfig, userName: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.clusters,
    users: kc.users.map((u) => {
      if (u.name !== userName) return u;
      // client-node types `exec` as any: drop it by copying the other fields.
      const rest: Record<string, unknown> = { ...u };
      delete rest.exec;
      return rest;
    }),
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  return out;
}

/**
 * Credentials from a KubeConfig whose current context is the cluster's. Static credentials are read
 * once; token files and auth providers are asked on every request (client-node caches their tokens
 * until expiry). Exec plugins are run by rxfleet, with a token cache per cluster: their token is
 * refreshed before it expires (in the last 20% of its life, at most a minute early), after a 401
 * (`invalidate`), and a failing plugin's stderr is in the error.
 *
 * @example
 * ```ts
 * const auth = authFromKubeConfig(kc);
 * ```
 * @param initial - the cluster's own KubeConfig (never shared with another cluster).
 * @returns the credential source.
 */
export function authFromKubeConfig(initial: KubeConfig): AuthSource {
  const user = initial.getCurrentUser();
  const cluster = initial.getCurrentCluster();
  const exec: unknown = user?.exec;
  const authProvider: unknown = user?.authProvider;
  const dynamic = exec != null || authProvider != null;
  const execCache =
    exec != null && user !== null && cluster !== null
      ? execCredentialCache(() =>
          runExecPlugin(exec as ExecPluginConfig, { server: cluster.server, caData: cluster.caData, tlsServerName: cluster.tlsServerName, skipTLSVerify: cluster.skipTLSVerify }),
        )
      : undefined;
  let kc = execCache === undefined || user === null ? initial : withoutExec(initial, user.name);
  let cached: Promise<Credentials> | undefined;

  const read = async (): Promise<Credentials> => {
    const scratch: HttpsScratch = {};
    await kc.applyToHTTPSOptions(scratch as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
    if (execCache !== undefined) {
      const status = await execCache.get();
      if (status.token !== undefined && status.token !== '') scratch.headers = { ...scratch.headers, Authorization: `Bearer ${status.token}` };
      if (status.clientCertificateData !== undefined) scratch.cert = status.clientCertificateData;
      if (status.clientKeyData !== undefined) scratch.key = status.clientKeyData;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(scratch.headers ?? {})) {
      if (typeof v === 'string') headers[k] = v;
    }
    if (scratch.auth !== undefined) headers.Authorization = `Basic ${Buffer.from(scratch.auth).toString('base64')}`;
    const ca = single(scratch.ca);
    const cert = single(scratch.cert);
    const key = single(scratch.key);
    const servername = cluster?.tlsServerName;
    return {
      headers,
      rejectUnauthorized: cluster?.skipTLSVerify !== true,
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      ...(servername === undefined || servername === '' ? {} : { servername }),
    };
  };

  return {
    dynamic,
    credentials(): Promise<Credentials> {
      if (dynamic) return read();
      cached ??= read();
      return cached;
    },
    invalidate(): void {
      cached = undefined;
      execCache?.invalidate();
      // A fresh KubeConfig has empty token caches, so the next request runs the exec plugin again.
      const fresh = new KubeConfig();
      fresh.loadFromString(kc.exportConfig());
      fresh.setCurrentContext(kc.getCurrentContext());
      kc = fresh;
    },
  };
}
