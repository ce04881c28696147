// Where the control-plane binaries come from: the rule of hack/ensure-binaries.sh, which the
// package ships (with hack/versions.env and the Go wrapper modules) so that users' tests run the
// very versions the project's own tests run. Per binary: the env override if set, else
// ${RXFLEET_CACHE_DIR:-~/.cache/rxfleet}/bin/<name>-<version>, built from the Go module proxy on
// first use by that script (progress on stderr).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../core/config-error.js';

/**
 * A control-plane binary envtest can run.
 *
 * @example
 * ```ts
 * const name: BinaryName = 'kube-apiserver';
 * ```
 */
export type BinaryName = 'kcp' | 'kube-apiserver' | 'etcd' | 'kcp-front-proxy' | 'kcp-cache-server';

/**
 * One resolved binary.
 *
 * @example
 * ```ts
 * const kcp: Binary = resolveBinary('kcp'); // { name: 'kcp', version: 'v0.28.1', path: '~/.cache/rxfleet/bin/kcp-v0.28.1', overridden: false }
 * ```
 */
export interface Binary {
  /** Which binary. */
  readonly name: BinaryName;
  /** The version pinned in hack/versions.env (also when an env override is used). */
  readonly version: string;
  /** The executable to run. */
  readonly path: string;
  /** True when the path came from the env override rather than the cache. */
  readonly overridden: boolean;
}

const ENV_VARS: Readonly<Record<BinaryName, string>> = {
  kcp: 'RXFLEET_KCP_BIN',
  'kube-apiserver': 'RXFLEET_KUBE_APISERVER_BIN',
  etcd: 'RXFLEET_ETCD_BIN',
  'kcp-front-proxy': 'RXFLEET_KCP_FRONT_PROXY_BIN',
  'kcp-cache-server': 'RXFLEET_KCP_CACHE_SERVER_BIN',
};

const VERSION_KEYS: Readonly<Record<BinaryName, string>> = {
  kcp: 'KCP_VERSION',
  'kube-apiserver': 'KUBE_APISERVER_VERSION',
  etcd: 'ETCD_VERSION',
  // Built from the kcp module: always kcp's own version.
  'kcp-front-proxy': 'KCP_VERSION',
  'kcp-cache-server': 'KCP_VERSION',
};

/**
 * The folder holding hack/versions.env: the repository root, or the installed package's root.
 * Searched upwards rather than fixed, because this file runs from src/, dist/ and dist-demo/.
 *
 * @example
 * ```ts
 * const script = join(repoRoot, 'hack', 'ensure-binaries.sh');
 * ```
 */
export const repoRoot: string = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'hack', 'versions.env'))) return dir;
    if (dirname(dir) === dir) return join(start, '..', '..');
  }
}

/**
 * KEY=value pairs of hack/versions.env (comments and blank lines skipped).
 *
 * @example
 * ```ts
 * const kcpVersion = readVersions().get('KCP_VERSION'); // 'v0.28.1'
 * ```
 */
export function readVersions(file: string = join(repoRoot, 'hack', 'versions.env')): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    out.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim().replace(/^["']|["']$/g, ''));
  }
  return out;
}

/**
 * `${RXFLEET_CACHE_DIR:-$HOME/.cache/rxfleet}`, as hack/ensure-binaries.sh computes it.
 *
 * @example
 * ```ts
 * const binDir = join(cacheDir(), 'bin');
 * ```
 */
export function cacheDir(): string {
  const fromEnv = process.env.RXFLEET_CACHE_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.cache', 'rxfleet');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves one binary without building it; throws a message that says how to get it when missing.
 *
 * @example
 * ```ts
 * const kas = resolveBinary('kube-apiserver'); // throws "kube-apiserver v1.36.3 is not built: ..." when missing
 * ```
 */
export function resolveBinary(name: BinaryName): Binary {
  const versionKey = VERSION_KEYS[name];
  const version = readVersions().get(versionKey);
  if (version === undefined) throw new Error(`${join(repoRoot, 'hack', 'versions.env')} has no ${versionKey}`);
  const envVar = ENV_VARS[name];
  const override = process.env[envVar];
  if (override !== undefined && override !== '') {
    if (!isExecutable(override)) throw new ConfigError(`${envVar}=${override} is not an executable file; point it at the ${name} binary, or unset it to use the cached build`);
    return { name, version, path: override, overridden: true };
  }
  const path = join(cacheDir(), 'bin', `${name}-${version}`);
  if (!isExecutable(path)) {
    throw new Error(
      `${name} ${version} is not built: ${path} is missing. Run \`bash ${join(repoRoot, 'hack', 'ensure-binaries.sh')}\` ` +
        `(one-time build from the Go module proxy, needs Go >= 1.26), or set ${envVar} to an existing binary.`,
    );
  }
  return { name, version, path, overridden: false };
}

/**
 * Resolves `names`, building the missing ones first with the shipped hack/ensure-binaries.sh
 * (needs bash and Go ≥ 1.26; a one-time build of several minutes, its progress on stderr; a
 * concurrent caller waits on the script's lock and finds the binary built).
 *
 * @example
 * ```ts
 * const [kas, etcd] = await ensureBinaries(['kube-apiserver', 'etcd']);
 * ```
 */
export async function ensureBinaries(names: readonly BinaryName[]): Promise<Binary[]> {
  const missing = names.filter((n) => {
    try {
      resolveBinary(n);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) await runEnsureScript(missing);
  return names.map(resolveBinary);
}

function runEnsureScript(names: readonly BinaryName[]): Promise<void> {
  const script = join(repoRoot, 'hack', 'ensure-binaries.sh');
  const args = [script, ...names.flatMap((n) => ['--only', n])];
  process.stderr.write(`rxfleet envtest: building ${names.join(', ')} once into ${join(cacheDir(), 'bin')} (bash ${args.join(' ')})\n`);
  return new Promise((resolvePromise, reject) => {
    // stderr is the user's terminal: the script's progress lines and go's own output show there.
    const child = spawn('bash', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', (err) => {
      reject(new Error(`rxfleet envtest: cannot run bash ${script}: ${err.message}`, { cause: err }));
    });
    child.once('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`rxfleet envtest: ${script} failed (code=${code} signal=${signal}); its output is above on stderr`));
    });
  });
}
