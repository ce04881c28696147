// Where the control-plane binaries live: the same rule as hack/ensure-binaries.sh, so that the
// harness finds exactly what that script built. Per binary: the env override if set, else
// ${RXFLEET_CACHE_DIR:-~/.cache/rxfleet}/bin/<name>-<version> with the version from hack/versions.env.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BinaryName = 'kcp' | 'kube-apiserver' | 'etcd';

export interface Binary {
  readonly name: BinaryName;
  /** The version pinned in hack/versions.env (also when an env override is used). */
  readonly version: string;
  readonly path: string;
  /** True when the path came from the env override rather than the cache. */
  readonly overridden: boolean;
}

const ENV_VARS: Readonly<Record<BinaryName, string>> = {
  kcp: 'RXFLEET_KCP_BIN',
  'kube-apiserver': 'RXFLEET_KUBE_APISERVER_BIN',
  etcd: 'RXFLEET_ETCD_BIN',
};

const VERSION_KEYS: Readonly<Record<BinaryName, string>> = {
  kcp: 'KCP_VERSION',
  'kube-apiserver': 'KUBE_APISERVER_VERSION',
  etcd: 'ETCD_VERSION',
};

/**
 * The repository root: the nearest folder above this file that holds hack/versions.env. Searched
 * rather than fixed, because the demo runs a compiled copy of this file from dist-demo/.
 */
export const repoRoot: string = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'hack', 'versions.env'))) return dir;
    if (dirname(dir) === dir) return resolve(start, '..', '..');
  }
}

/** KEY=value pairs of hack/versions.env (comments and blank lines skipped). */
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

/** ${RXFLEET_CACHE_DIR:-$HOME/.cache/rxfleet}, as hack/ensure-binaries.sh computes it. */
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
 * Resolves one binary; throws a message that says how to get it when it is missing.
 *
 * @example
 * const kcp = resolveBinary('kcp'); // { name: 'kcp', version: 'v0.28.1', path: '/root/.cache/rxfleet/bin/kcp-v0.28.1', ... }
 */
export function resolveBinary(name: BinaryName): Binary {
  const versions = readVersions();
  const versionKey = VERSION_KEYS[name];
  const version = versions.get(versionKey);
  if (version === undefined) throw new Error(`hack/versions.env has no ${versionKey}`);
  const envVar = ENV_VARS[name];
  const override = process.env[envVar];
  if (override !== undefined && override !== '') {
    if (!isExecutable(override)) throw new Error(`${envVar}=${override} is not an executable file`);
    return { name, version, path: override, overridden: true };
  }
  const path = join(cacheDir(), 'bin', `${name}-${version}`);
  if (!isExecutable(path)) {
    throw new Error(
      `${name} ${version} is not built: ${path} is missing. Run \`bash hack/ensure-binaries.sh\` ` +
        `(one-time build from the Go module proxy), or set ${envVar} to an existing binary.`,
    );
  }
  return { name, version, path, overridden: false };
}
