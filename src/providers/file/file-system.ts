// What the file provider asks of the file system, as functions returning ObservableInputs: the
// default reads through fs/promises (never blocking the event loop on a file's content) and parses
// big files in a worker thread; tests inject their own to count reads and parses, and to run in
// virtual time.
import { readFile, stat } from 'node:fs/promises';
import type { ObservableInput } from 'rxjs';
import { parseKubeconfigBytes } from './parse-document.js';
import type { WatchDirectory } from './watch-dirs.js';

/**
 * What says whether a file may have changed without reading it: a file replaced by rename (editors,
 * Kubernetes' `..data` symlink swap) has a new inode; one written in place a new mtime, ctime or size.
 *
 * @example
 * ```ts
 * const s: FileStamp = { ino: 1234, size: 2048, mtimeMs: 1_700_000_000_000, ctimeMs: 1_700_000_000_000 };
 * ```
 */
export interface FileStamp {
  /** Inode number: changes when the file is replaced (rename-on-save, a `..data` symlink swap). */
  readonly ino: number;
  /** Size in bytes. */
  readonly size: number;
  /** Last content change, ms since the epoch. */
  readonly mtimeMs: number;
  /** Last metadata change, ms since the epoch. */
  readonly ctimeMs: number;
}

/**
 * The file-system calls of the file provider. Each returns an ObservableInput (a Promise in
 * production; `of(…)` in a marble test); a failure carries the error's `code` (`ENOENT`, `EACCES`…).
 *
 * @example
 * ```ts
 * const counting: KubeconfigFileSystem = { ...nodeKubeconfigFileSystem, read: (p: string) => { reads++; return nodeKubeconfigFileSystem.read(p); } };
 * ```
 */
export interface KubeconfigFileSystem {
  /** The stamp of a file, following symlinks. */
  readonly stat: (path: string) => ObservableInput<FileStamp>;
  /** A file's content. */
  readonly read: (path: string) => ObservableInput<Uint8Array>;
  /** A file's content as a document (YAML or JSON); fails with `{ reason, line?, column? }` (see `ParseFailure`). */
  readonly parse: (bytes: Uint8Array) => ObservableInput<unknown>;
  /** The wall clock that file times are compared with (default `Date.now`): a stamp is trusted once the file was still for 2 s before it was read. */
  readonly now?: () => number;
  /** Watches a directory (default `fs.watch`); tests inject one that fails, to see the poll take over. */
  readonly watch?: WatchDirectory;
}

/**
 * The default: `fs/promises` stat and readFile, and `parseKubeconfigBytes` (a worker thread for big files).
 *
 * @example
 * ```ts
 * kubeconfigFileProvider({ paths: ['/etc/fleet'], fileSystem: nodeKubeconfigFileSystem });
 * ```
 */
export const nodeKubeconfigFileSystem: KubeconfigFileSystem = Object.freeze({
  stat: async (path: string): Promise<FileStamp> => {
    const s = await stat(path);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
  },
  read: (path: string): Promise<Uint8Array> => readFile(path),
  parse: parseKubeconfigBytes,
});
