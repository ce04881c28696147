// Where kubeconfig files are: the multicluster-runtime file provider's defaults and patterns, and
// the directories to watch so that files appearing, changing or vanishing are seen.
import { existsSync, globSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, matchesGlob, resolve } from 'node:path';

/** File names taken from a directory, as multicluster-runtime's `DefaultKubeconfigGlobs`. @example `matchesGlob('prod.kubeconfig', '*.kubeconfig')` */
export const defaultKubeconfigGlobs: readonly string[] = Object.freeze(['kubeconfig.yaml', 'kubeconfig.yml', '*.kubeconfig', '*.kubeconfig.yaml', '*.kubeconfig.yml']);

/**
 * The default paths, in order of preference: `$KUBECONFIG` (a path list), else `~/.kube/config` if
 * it is a file, else the working directory (kubeconfig-looking files in it).
 *
 * @example
 * ```ts
 * defaultKubeconfigPaths({ KUBECONFIG: '/a:/b' }); // ['/a', '/b']
 * ```
 * @param env - the environment (default `process.env`).
 * @param home - the home directory.
 * @param cwd - the working directory.
 * @returns the paths.
 */
export function defaultKubeconfigPaths(env: NodeJS.ProcessEnv = process.env, home = homedir(), cwd = process.cwd()): readonly string[] {
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  if (fromEnv.length > 0) return fromEnv;
  const config = join(home, '.kube', 'config');
  if (existsSync(config) && statSync(config).isFile()) return [config];
  return [cwd];
}

const globChars = /[*?[{]/;

/** The longest leading part of a glob without glob characters: the directory to watch for it. */
function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const i = parts.findIndex((p) => globChars.test(p));
  return parts.slice(0, Math.max(i, 0)).join('/') || (pattern.startsWith('/') ? '/' : '.');
}

/**
 * A path that yields no kubeconfig file, and why: it does not exist, cannot be read, or is a
 * directory or pattern with no matching file.
 *
 * @example
 * ```ts
 * const u: UnmatchedPath = { path: '/etc/fleet', reason: 'kubeconfig path /etc/fleet does not exist' };
 * ```
 */
export interface UnmatchedPath {
  /** The path as given. */
  readonly path: string;
  /** Why it gives no file, naming the path (one line for a log). */
  readonly reason: string;
}

/**
 * What a list of paths expands to.
 *
 * @example
 * ```ts
 * const { files, dirs, unmatched } = expandPaths(['/etc/fleet'], defaultKubeconfigGlobs);
 * ```
 */
export interface ExpandedPaths {
  /** Kubeconfig files, absolute, sorted, without duplicates. */
  readonly files: readonly string[];
  /** Directories whose changes matter (a file's directory, so that replacing it by rename is seen; a glob's base). */
  readonly dirs: readonly string[];
  /** Paths that gave no file, each with the cause: a misconfiguration is never silent. */
  readonly unmatched: readonly UnmatchedPath[];
}

/**
 * Expands paths (files, directories, globs) into kubeconfig files, lists the directories to watch,
 * and says which paths gave nothing and why.
 *
 * @example
 * ```ts
 * expandPaths(['/etc/fleet', '/home/me/.kube/*.yaml'], defaultKubeconfigGlobs);
 * ```
 * @param paths - files, directories and globs.
 * @param globs - file-name patterns kept from directories.
 * @returns the files, the directories to watch and the unmatched paths.
 */
export function expandPaths(paths: readonly string[], globs: readonly string[]): ExpandedPaths {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const unmatched: UnmatchedPath[] = [];
  for (const p of paths) {
    let matched = 0;
    const take = (f: string): void => {
      matched++;
      files.add(resolve(f));
    };
    if (globChars.test(p)) {
      dirs.add(resolve(globBase(p)));
      for (const f of globSync(p)) if (kindOf(f) === 'file') take(f);
      if (matched === 0) unmatched.push({ path: p, reason: `kubeconfig pattern ${p} matches no file` });
      continue;
    }
    const kind = kindOf(p);
    if (kind === 'directory') {
      dirs.add(resolve(p));
      const entries = readable(() => readdirSync(p));
      if (typeof entries === 'string') {
        unmatched.push({ path: p, reason: `cannot read kubeconfig directory ${p}: ${entries}` });
        continue;
      }
      for (const entry of entries) {
        const f = join(p, entry);
        if (globs.some((g) => matchesGlob(entry, g)) && kindOf(f) === 'file') take(f);
      }
      if (matched === 0) unmatched.push({ path: p, reason: `kubeconfig directory ${p} has no file named ${globs.join(', ')}` });
      continue;
    }
    dirs.add(resolve(dirname(p)));
    if (kind === 'file') take(p);
    else unmatched.push({ path: p, reason: kind === 'missing' ? `kubeconfig path ${p} does not exist` : kind === 'other' ? `kubeconfig path ${p} is not a file or directory` : `cannot read kubeconfig path ${p}: ${kind.error}` });
  }
  return { files: [...files].sort(), dirs: [...dirs].filter((d) => kindOf(d) === 'directory').sort(), unmatched };
}

type PathKind = 'file' | 'directory' | 'other' | 'missing' | { readonly error: string };

function kindOf(p: string): PathKind {
  const st = readable(() => statSync(p));
  if (typeof st !== 'string') return st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
  return st === 'ENOENT' || st === 'ENOTDIR' ? 'missing' : { error: st };
}

/** Runs a file-system call; a failure becomes its error code (`ENOENT`, `EACCES`…), the part worth reading. */
function readable<T>(call: () => T): T | string {
  try {
    return call();
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
    return code ?? (err instanceof Error ? (err.message.split('\n')[0] ?? 'unknown error') : 'unknown error');
  }
}
