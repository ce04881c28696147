// Shared pieces of the file provider's marble tests: kubeconfigs, how events read, atomic writes, and
// the real file system read synchronously and counted (promises are not virtualised).
import { mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { of } from 'rxjs';
import type { KubeconfigFileSystem } from '../../src/providers/file/index.js';
import { parseText } from '../../src/providers/file/parse-document.js';
import type { FleetEvent } from '../../src/streams/cluster.js';

export interface Context {
  readonly name: string;
  readonly port: number;
  readonly labels?: Record<string, unknown>;
}

/** A kubeconfig with one cluster, user and context per entry; labels go in the rxfleet.dev/labels extension. */
export function kubeconfig(...contexts: Context[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((c) => ({ name: `${c.name}-c`, cluster: { server: `https://127.0.0.1:${c.port}` } })),
    users: contexts.map((c) => ({ name: `${c.name}-u`, user: { token: 'secret-token' } })),
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: `${c.name}-c`, user: `${c.name}-u`, ...(c.labels === undefined ? {} : { extensions: [{ name: 'rxfleet.dev/labels', extension: c.labels }] }) },
    })),
    'current-context': contexts[0]?.name,
  });
}

export const show = (ev: FleetEvent): string => {
  if (ev.type === 'engaged') return `+${ev.cluster.name} [${ev.cluster.identity?.from ?? ''}] ${JSON.stringify(ev.cluster.labels ?? {})}`;
  if (ev.type === 'disengaged') return `-${ev.cluster} (${ev.reason ?? ''})`;
  const r = ev.report;
  if (r.type === 'discovered') return `!discovered ${r.clusters}/${r.candidates}`;
  return `!${r.type} ${'cluster' in r ? r.cluster : 'candidate' in r ? r.candidate : ''}: ${'reason' in r ? r.reason : ''}`;
};

/** How often each file was read and parsed, by base name. */
export interface Calls {
  readonly reads: Record<string, number>;
  readonly parses: number;
}

/**
 * The real files, read synchronously (promises are not virtualised) and counted. Its clock is 10 s
 * ahead, so that a file just written counts as still (its stamp is trusted at once).
 */
export function syncFs(): KubeconfigFileSystem & { readonly calls: Calls } {
  const calls = { reads: {} as Record<string, number>, parses: 0 };
  return {
    calls,
    now: () => Date.now() + 10_000,
    stat: (p) => {
      const s = statSync(p);
      return of({ ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs });
    },
    read: (p) => {
      const base = p.split('/').pop() ?? p;
      calls.reads[base] = (calls.reads[base] ?? 0) + 1;
      return of(readFileSync(p));
    },
    parse: (bytes) => {
      calls.parses += 1;
      return of(parseText(new TextDecoder().decode(bytes)));
    },
  };
}

/** Writes atomically (temp file + rename), as editors and kubectl do: the file gets a new inode. */
export function put(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'rxfleet-file-marbles-'));

