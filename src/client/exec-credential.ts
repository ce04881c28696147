// Exec credential plugins (client.authentication.k8s.io), run by rxfleet itself rather than by
// client-node: client-node keeps a token until the very instant it expires (so a request sent just
// before that instant can arrive with a dead token), passes no KUBERNETES_EXEC_INFO, and waits on a
// hung plugin forever. Here a token is refreshed before it expires, the plugin gets the cluster it
// is asked about, and every run has a timeout. Tokens are never logged nor put into errors.

/**
 * A kubeconfig `users[].user.exec` entry, as client-node parses it.
 *
 * @example
 * ```ts
 * const exec: ExecPluginConfig = { command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'], apiVersion: 'client.authentication.k8s.io/v1beta1' };
 * ```
 */
export interface ExecPluginConfig {
  /** Program to run: a path, or a name looked up in `PATH`. */
  readonly command: string;
  /** Arguments passed to the program; none when absent or null. */
  readonly args?: readonly string[] | null;
  /** Variables added to (or overriding) the environment rxfleet passes on to the plugin; none when absent or null. */
  readonly env?: readonly {
    /** Name of the environment variable to set. */
    readonly name: string;
    /** Value to set it to. */
    readonly value: string;
  }[] | null;
  /** ExecCredential version the plugin speaks; default `client.authentication.k8s.io/v1`. */
  readonly apiVersion?: string;
  /** Whether the plugin gets the cluster's server and TLS settings in `KUBERNETES_EXEC_INFO`; default false. */
  readonly provideClusterInfo?: boolean;
}

/**
 * The cluster a plugin is asked about (sent in `KUBERNETES_EXEC_INFO` when `provideClusterInfo`).
 *
 * @example
 * ```ts
 * const info: ExecClusterInfo = { server: 'https://10.0.0.1:6443', caData: 'LS0t…' };
 * ```
 */
export interface ExecClusterInfo {
  readonly server: string;
  readonly caData?: string | undefined;
  readonly tlsServerName?: string | undefined;
  readonly skipTLSVerify?: boolean | undefined;
}

/**
 * The `status` of an ExecCredential.
 *
 * @example
 * ```ts
 * const s: ExecCredentialStatus = { token: '…', expirationTimestamp: '2030-01-01T00:00:00Z' };
 * ```
 */
export interface ExecCredentialStatus {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  readonly expirationTimestamp?: string;
}

/** How long a plugin may run before it is killed and the request fails (ms). @example `runExecPlugin(exec, cluster, execPluginTimeoutMs)` */
export const execPluginTimeoutMs = 30_000;
// How much of a token's life is left unused: 20% of it, at most a minute. A 15-minute token is
// refreshed a minute early; a 10-second test token two seconds early.
const refreshShare = 0.2;
const refreshCapMs = 60_000;

function execInfo(exec: ExecPluginConfig, cluster: ExecClusterInfo | undefined): string {
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo === true && cluster !== undefined) {
    spec.cluster = {
      server: cluster.server,
      ...(cluster.caData === undefined ? {} : { 'certificate-authority-data': cluster.caData }),
      ...(cluster.tlsServerName === undefined ? {} : { 'tls-server-name': cluster.tlsServerName }),
      ...(cluster.skipTLSVerify === true ? { 'insecure-skip-tls-verify': true } : {}),
    };
  }
  return JSON.stringify({ apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec });
}

/**
 * Runs an exec credential plugin once. Rejects with an Error naming the command and carrying the
 * plugin's stderr (what kubectl shows) when it fails, times out or prints no ExecCredential.
 *
 * @example
 * ```ts
 * const status = await runExecPlugin({ command: './issue-token.sh' }, { server: 'https://127.0.0.1:6443' });
 * ```
 * @param exec - the kubeconfig's exec entry.
 * @param cluster - the cluster, passed to the plugin when it asks for cluster info.
 * @param timeoutMs - how long the plugin may run.
 * @returns the credential's status.
 */
export function runExecPlugin(exec: ExecPluginConfig, cluster?: ExecClusterInfo, timeoutMs = execPluginTimeoutMs): Promise<ExecCredentialStatus> {
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: execInfo(exec, cluster) };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  return new Promise((resolve, reject) => {
    // node:child_process (and the modules it brings: net sockets, dgram) loads at the first
    // command, not with the module: most controllers never run one.
    const { execFile } = process.getBuiltinModule('node:child_process');
    execFile(exec.command, [...(exec.args ?? [])], { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const tail = stderr.trim().slice(-2000);
      if (err !== null) {
        const how = err.killed ? `was killed after ${timeoutMs} ms` : typeof err.code === 'number' ? `exited with code ${err.code}` : `could not run (${err.code ?? err.message})`;
        reject(new Error(`exec plugin "${exec.command}" ${how}${tail === '' ? '' : `: ${tail}`}`));
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdout);
      } catch {
        reject(new Error(`exec plugin "${exec.command}" did not print an ExecCredential as JSON${tail === '' ? '' : `: ${tail}`}`));
        return;
      }
      const status = (parsed as { status?: unknown } | null)?.status;
      if (typeof status !== 'object' || status === null) {
        reject(new Error(`exec plugin "${exec.command}" printed an ExecCredential without status`));
        return;
      }
      resolve(status);
    });
  });
}

/**
 * A cached exec credential: the plugin runs on first use, again once the token is near its
 * expiry (see {@link runExecPlugin}), and again after `invalidate()` (a 401). Concurrent callers
 * share one run; a failed run is not cached.
 *
 * @example
 * ```ts
 * const cache = execCredentialCache(() => runExecPlugin(exec, cluster));
 * const { token } = await cache.get();
 * ```
 * @param run - runs the plugin.
 * @param now - the clock (ms since epoch).
 * @returns the cache.
 */
export function execCredentialCache(
  run: () => Promise<ExecCredentialStatus>,
  now: () => number = Date.now,
): { get(): Promise<ExecCredentialStatus>; invalidate(): void } {
  let current: { status: Promise<ExecCredentialStatus>; refreshAt: number } | undefined;
  const fetch = (): Promise<ExecCredentialStatus> => {
    const obtained = now();
    const entry = { status: run(), refreshAt: Number.POSITIVE_INFINITY };
    current = entry;
    entry.status.then(
      (s) => {
        const expiry = s.expirationTimestamp === undefined ? Number.NaN : Date.parse(s.expirationTimestamp);
        if (!Number.isNaN(expiry)) entry.refreshAt = expiry - Math.min(refreshCapMs, Math.max(0, expiry - obtained) * refreshShare);
      },
      () => {
        if (current === entry) current = undefined;
      },
    );
    return entry.status;
  };
  return {
    get: () => (current === undefined || now() >= current.refreshAt ? fetch() : current.status),
    invalidate: () => {
      current = undefined;
    },
  };
}
