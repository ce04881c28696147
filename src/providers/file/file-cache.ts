// What each kubeconfig file holds, kept between scans so that only what changed is read and parsed:
// a file whose stamp (inode, size, mtime, ctime) is unchanged is not read; one whose content hash is
// unchanged is not parsed. A stamp is trusted only once the file has been still for a while before
// it was read, as git does with racily clean files: two writes in one timestamp tick keep the stamp.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, catchError, defer, map, mergeMap, of, take } from 'rxjs';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { FileStamp, KubeconfigFileSystem } from './file-system.js';
import type { LoadedFile } from './load-file.js';
import { loadKubeconfigDocumentInSlices } from './load-file.js';
import { parseFailureOf, parseFailureText } from './parse-document.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

/**
 * A file's contexts, or why it is skipped (naming the path and the cause). The same object is
 * returned while the file is unchanged, so a scan tells "nothing changed" by identity.
 *
 * @example
 * ```ts
 * const look: FileLook = E.left('kubeconfig /etc/fleet/a.kubeconfig is empty');
 * ```
 */
export type FileLook = Either<string, LoadedFile>;

/**
 * Looks at kubeconfig files, reading and parsing only what changed since the last look.
 *
 * @example
 * ```ts
 * const cache = kubeconfigFileCache(nodeKubeconfigFileSystem);
 * cache.look('/etc/fleet/a.kubeconfig').subscribe((look: FileLook) => use(look));
 * ```
 */
export interface KubeconfigFileCache {
  /** The file's contexts now (one value, then complete; never errors). */
  readonly look: (path: string) => Observable<FileLook>;
  /** Forgets every file but these (files no longer found), so that a re-created file is read afresh. */
  readonly retain: (paths: readonly string[]) => void;
}

interface Entry {
  readonly stamp: FileStamp;
  /** Whether the stamp can be trusted to say "unchanged" (the file was still before it was read). */
  readonly trusted: boolean;
  readonly hash: string;
  readonly look: FileLook;
}

/** How long a file must have been still before it was read for its stamp to be trusted. */
const racyMs = 2_000;

const sameStamp = (a: FileStamp, b: FileStamp): boolean => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** Whitespace only (checked up to the first other byte, so a big file costs nothing here). */
function blank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  return true;
}

/** The part of a file-system error worth reading: its code (`ENOENT`), permission errors spelled out. */
function why(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code !== undefined) return code;
  return err instanceof Error ? (err.message.split('\n')[0] ?? 'unknown error') : 'unknown error';
}

/**
 * A cache of kubeconfig files over a file system.
 *
 * @example
 * ```ts
 * const cache = kubeconfigFileCache(nodeKubeconfigFileSystem);
 * ```
 * @param fs - stat, read and parse.
 * @param clock - wall-clock ms, compared with file times (default `Date.now`).
 * @param scheduler - where a big file's contexts are loaded, slice by slice.
 * @returns the cache.
 */
export function kubeconfigFileCache(fs: KubeconfigFileSystem, clock: () => number = Date.now, scheduler: SchedulerLike = asyncScheduler): KubeconfigFileCache {
  const entries = new Map<string, Entry>();
  const remember = (path: string, e: Entry): FileLook => {
    entries.set(path, e);
    return e.look;
  };
  const content = (path: string, stamp: FileStamp, known: Entry | undefined): Observable<FileLook> => {
    const readAt = clock();
    return defer(() => fs.read(path)).pipe(
      take(1),
      mergeMap((bytes) => {
        const trusted = Math.max(stamp.mtimeMs, stamp.ctimeMs) < readAt - racyMs;
        const hash = createHash('sha256').update(bytes).digest('hex');
        if (known?.hash === hash) return of(remember(path, { ...known, stamp, trusted }));
        if (blank(bytes)) return of(remember(path, { stamp, trusted, hash, look: E.left(`kubeconfig ${path} is empty`) }));
        return defer(() => fs.parse(bytes)).pipe(
          take(1),
          mergeMap((raw) => loadKubeconfigDocumentInSlices(raw, path, scheduler, known !== undefined && E.isRight(known.look) ? known.look.right : undefined)),
          catchError((err: unknown) => of(E.left(`invalid kubeconfig ${path}: ${parseFailureText(parseFailureOf(err))}`))),
          map((look) => remember(path, { stamp, trusted, hash, look })),
        );
      }),
    );
  };
  return {
    look: (path) =>
      defer(() => fs.stat(path)).pipe(
        take(1),
        mergeMap((stamp) => {
          const known = entries.get(path);
          return known?.trusted === true && sameStamp(known.stamp, stamp) ? of(known.look) : content(path, stamp, known);
        }),
        catchError((err: unknown) => {
          entries.delete(path);
          return of(E.left(`cannot read kubeconfig ${path}: ${why(err)}`));
        }),
      ),
    retain: (paths) => {
      const keep = new Set(paths);
      for (const p of entries.keys()) if (!keep.has(p)) entries.delete(p);
    },
  };
}
