// Credentials of one cluster, taken from its own loaded kubeconfig (tokens, client certificates,
// token files, exec plugins, basic auth, impersonation). Files are read on first use, not at load.
// Nothing here is ever logged or put into an error. @kubernetes/client-node is loaded only for a
// legacy `auth-provider` user (see kubeconfig-auth-provider.ts).
import { readFile } from 'node:fs/promises';
import { execCredentialCache, runExecPlugin } from './exec-credential.js';
import type { ClientNodeLoader } from './kubeconfig-auth-provider.js';
import { authProviderHeader, importClientNode } from './kubeconfig-auth-provider.js';
import type { LoadedKubeconfig } from './kubeconfig-types.js';

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
 * const auth = authFromKubeconfig(loaded); // loaded = loadKubeconfig(...).right
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

// client-go re-reads a token file once a minute (projected ServiceAccount tokens rotate).
const tokenFileTtlMs = 60_000;

async function readNamed(what: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // "(why)", not ": why": error scrubbing reads `…/token: x` as a token and would hide the reason.
    throw new Error(`cannot read ${what} ${file} (${code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : typeof code === 'string' ? code : 'unreadable'})`, { cause: err });
  }
}

/** A PEM from a file (read as is) or from base64 data, as kubectl takes them; the file wins. */
async function pem(what: string, file: string | undefined, data: string | undefined): Promise<Buffer | undefined> {
  if (file !== undefined) return readNamed(what, file);
  return data === undefined ? undefined : Buffer.from(data, 'base64');
}

interface Tls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** A token file's token, re-read after a minute and after `reset`; a failed re-read keeps the last token, as client-go does. */
function tokenFileSource(file: string, now: () => number = Date.now): { token(): Promise<string>; reset(): void } {
  let last: { token: string; at: number } | undefined;
  let fresh = false;
  return {
    async token(): Promise<string> {
      if (last !== undefined && fresh && now() - last.at < tokenFileTtlMs) return last.token;
      try {
        last = { token: (await readNamed('token file', file)).toString('utf8').trim(), at: now() };
        fresh = true;
      } catch (err) {
        if (last === undefined) throw err;
      }
      return last.token;
    },
    reset(): void {
      fresh = false;
    },
  };
}

/**
 * Credentials from a loaded kubeconfig (see `loadKubeconfig`). Static credentials are read once,
 * on first use. A token file is read again every minute and after a 401; an `auth-provider` is
 * asked on every request (@kubernetes/client-node, an optional peer dependency loaded for such users
 * only, caches its token; without it, their requests fail saying `npm install @kubernetes/client-node`).
 * Exec plugins are run by rxfleet, with a token cache per cluster: their token is refreshed before
 * it expires (in the last 20% of its life, at most a minute early), after a 401 (`invalidate`), and
 * a failing plugin's stderr is in the error. An unreadable file rejects naming the file and why.
 *
 * @example
 * ```ts
 * const kc = loadKubeconfig(clusterName('east'), { file: 'east.kubeconfig' });
 * if (isRight(kc)) createTransport(clusterName('east'), kc.right.cluster.server, authFromKubeconfig(kc.right));
 * ```
 * @param kubeconfig - the cluster's own loaded kubeconfig.
 * @returns the credential source.
 */
export function authFromKubeconfig(kubeconfig: LoadedKubeconfig): AuthSource {
  return kubeconfigAuth(kubeconfig, importClientNode);
}

/**
 * {@link authFromKubeconfig} with the loader of @kubernetes/client-node given: a test gives one
 * whose import fails, to see what a user without the package sees.
 *
 * @example
 * ```ts
 * const auth = kubeconfigAuth(loaded, () => import('@kubernetes/client-node'));
 * ```
 * @param kubeconfig - the cluster's own loaded kubeconfig.
 * @param loadClientNode - loads @kubernetes/client-node, for an `auth-provider` user only.
 * @returns the credential source.
 */
export function kubeconfigAuth(kubeconfig: LoadedKubeconfig, loadClientNode: ClientNodeLoader): AuthSource {
  const { cluster, user } = kubeconfig;
  const exec = user.exec;
  const execCache =
    exec === undefined
      ? undefined
      : execCredentialCache(() => runExecPlugin(exec, { server: cluster.server, caData: cluster.caData, tlsServerName: cluster.tlsServerName, skipTLSVerify: cluster.skipTLSVerify }));
  const provider = user.authProvider === undefined ? undefined : authProviderHeader(cluster, user, loadClientNode);
  const tokenFile = user.token === undefined && user.tokenFile !== undefined ? tokenFileSource(user.tokenFile) : undefined;
  const dynamic = execCache !== undefined || provider !== undefined || tokenFile !== undefined;
  let tls: Promise<Tls> | undefined;
  let cached: Promise<Credentials> | undefined;

  const readTls = async (): Promise<Tls> => {
    const [ca, cert, key] = await Promise.all([
      pem('certificate-authority', cluster.caFile, cluster.caData),
      pem('client-certificate', user.certFile, user.certData),
      pem('client-key', user.keyFile, user.keyData),
    ]);
    return { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) };
  };

  const read = async (): Promise<Credentials> => {
    const current = tls ?? (tls = readTls());
    // A failed read is not kept: the next request reads again.
    const material = await current.catch((err: unknown) => {
      if (tls === current) tls = undefined;
      throw err;
    });
    const headers: Record<string, string> = {};
    if (user.impersonateUser !== undefined) headers['Impersonate-User'] = user.impersonateUser;
    const authorization = await provider?.authorization();
    if (authorization !== undefined) headers.Authorization = authorization;
    const token = user.token ?? (await tokenFile?.token());
    if (token !== undefined && token !== '') headers.Authorization = `Bearer ${token}`;
    if (user.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    let { cert, key } = material;
    if (execCache !== undefined) {
      const status = await execCache.get();
      if (status.token !== undefined && status.token !== '') headers.Authorization = `Bearer ${status.token}`;
      // Exec plugins print PEM itself, not base64.
      if (status.clientCertificateData !== undefined) cert = Buffer.from(status.clientCertificateData);
      if (status.clientKeyData !== undefined) key = Buffer.from(status.clientKeyData);
    }
    return {
      headers,
      rejectUnauthorized: !cluster.skipTLSVerify,
      ...(material.ca === undefined ? {} : { ca: material.ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      ...(cluster.tlsServerName === undefined ? {} : { servername: cluster.tlsServerName }),
    };
  };

  return {
    dynamic,
    credentials(): Promise<Credentials> {
      if (dynamic) return read();
      const mine = cached ?? (cached = read());
      // A failed read (a file not there yet) is not cached either.
      mine.catch(() => {
        if (cached === mine) cached = undefined;
      });
      return mine;
    },
    invalidate(): void {
      cached = undefined;
      tls = undefined;
      execCache?.invalidate();
      provider?.reset();
      tokenFile?.reset();
    },
  };
}
