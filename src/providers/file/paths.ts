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
 * Expands paths (files, directories, globs) into kubeconfig files, and lists the directories whose
 * changes matter (a file's directory, so that replacing it by rename is seen; a glob's base).
 *
 * @example
 * ```ts
 * expandPaths(['/etc/fleet', '/home/me/.kube/*.yaml'], defaultKubeconfigGlobs);
 * ```
 * @param paths - files, directories and globs.
 * @param globs - file-name patterns kept from directories.
 * @returns the files (sorted, no duplicates) and the directories to watch.
 */
export function expandPaths(paths: readonly string[], globs: readonly string[]): { readonly files: readonly string[]; readonly dirs: readonly string[] } {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const p of paths) {
    if (globChars.test(p)) {
      dirs.add(resolve(globBase(p)));
      for (const f of globSync(p)) if (isFile(f)) files.add(f);
      continue;
    }
    if (isDirectory(p)) {
      dirs.add(resolve(p));
      for (const entry of readdirSync(p)) {
        const f = join(p, entry);
        if (globs.some((g) => matchesGlob(entry, g)) && isFile(f)) files.add(f);
      }
      continue;
    }
    dirs.add(resolve(dirname(p)));
    if (isFile(p)) files.add(p);
  }
  return { files: [...files].sort(), dirs: [...dirs].filter(isDirectory).sort() };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
