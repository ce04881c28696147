// The file provider reads and parses only what changed, in virtual time over a real temporary
// directory whose reads and parses are counted: a file with the same stamp is not read, one with the
// same content is not parsed, and only the context that changed is re-engaged. Renames (editors, a
// Kubernetes volume's ..data swap), deleted and re-created files, a directory that cannot be watched
// (polled instead) and a slow probe holding back no other cluster.
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { map, of, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { parseKubeconfig } from '../../src/client/kubeconfig-parse.js';
import { E } from '../../src/fp/index.js';
import { kubeconfigFileCache } from '../../src/providers/file/file-cache.js';
import { kubeconfigFileProvider } from '../../src/providers/file/index.js';
import { loadKubeconfigDocument } from '../../src/providers/file/load-file.js';
import { parseText } from '../../src/providers/file/parse-document.js';
import { contextFingerprint } from '../../src/providers/internal/kubeconfig.js';
import type { Cluster } from '../../src/streams/cluster.js';
import { kubeconfig, put, show, syncFs, tempDir } from './file-fixtures.js';
import { testScheduler } from './watch-fixtures.js';

describe('kubeconfigFileProvider follows changes, reading and parsing only what changed (virtual time, real files)', () => {
  it('should read a file only when its stamp changed and parse it only when its content changed, re-engaging only the cluster that changed', () => {
    const dir = tempDir();
    const a = join(dir, 'a.kubeconfig');
    const b = join(dir, 'b.kubeconfig');
    put(a, kubeconfig({ name: 'east', port: 1 }, { name: 'west', port: 2 }));
    put(b, kubeconfig({ name: 'north', port: 3 }));
    const fs = syncFs();
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      // Scans at 0, 10, 20, 30, 40: west's server changes at 15 (a rename, as editors write); b is
      // rewritten with the same content at 25 (a new inode: read again, but not parsed).
      ts.schedule(() => { put(a, kubeconfig({ name: 'east', port: 1 }, { name: 'west', port: 22 })); }, 15);
      ts.schedule(() => { put(b, kubeconfig({ name: 'north', port: 3 })); }, 25);
      const provider = kubeconfigFileProvider({ paths: [dir], watch: 'off', probe: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: fs });
      expectObservable(provider.pipe(map(show)), '^ 45ms !').toBe('(EeWwNnP) 11ms (XdWr)', {
        E: '+east [context "east" of kubeconfig a.kubeconfig] {}',
        e: '!engaged east: ',
        W: '+west [context "west" of kubeconfig a.kubeconfig] {}',
        w: '!engaged west: ',
        N: '+north [context "north" of kubeconfig b.kubeconfig] {}',
        n: '!engaged north: ',
        P: '!discovered 3/3',
        X: '-west (credentials or server changed)',
        d: '!disengaged west: credentials or server changed',
        r: '!reengaged west: credentials or server changed',
      });
    });
    // a: read at 0 and 20 (new inode), not at 10, 30, 40; b: at 0 and 30; parsed: a twice, b once.
    expect(fs.calls.reads).toEqual({ 'a.kubeconfig': 2, 'b.kubeconfig': 2 });
    expect(fs.calls.parses).toBe(3);
  });

  it('should follow a Kubernetes volume swapping its ..data link, and a file deleted and created again', () => {
    const dir = tempDir();
    const version = (v: string, port: number): void => {
      mkdirSync(join(dir, v));
      writeFileSync(join(dir, v, 'fleet.kubeconfig'), kubeconfig({ name: 'east', port }));
      symlinkSync(v, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    };
    version('..v1', 1);
    symlinkSync(join('..data', 'fleet.kubeconfig'), join(dir, 'fleet.kubeconfig'));
    const other = join(dir, 'other.kubeconfig');
    put(other, kubeconfig({ name: 'west', port: 2 }));
    const fs = syncFs();
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      ts.schedule(() => { version('..v2', 11); }, 5);
      ts.schedule(() => { rmSync(other); }, 15);
      ts.schedule(() => { put(other, kubeconfig({ name: 'west', port: 2 })); }, 25);
      const provider = kubeconfigFileProvider({ paths: [dir], watch: 'off', probe: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: fs });
      const events = provider.pipe(map((ev) => (ev.type === 'engaged' ? `+${ev.cluster.name}` : ev.type === 'disengaged' ? `-${ev.cluster}` : ev.report.type)));
      expectObservable(events, '^ 35ms !').toBe('(EeWwP) 3ms (XdEr) 4ms (Yd) 6ms (Ww)', {
        E: '+east', e: 'engaged', W: '+west', w: 'engaged', P: 'discovered', X: '-east', Y: '-west', d: 'disengaged', r: 'reengaged',
      });
    });
    expect(fs.calls.reads).toEqual({ 'fleet.kubeconfig': 2, 'other.kubeconfig': 2 });
  });

  it('should poll a directory that cannot be watched, saying so, and pick up a change at the next poll', () => {
    const dir = tempDir();
    const f = join(dir, 'fleet.kubeconfig');
    put(f, kubeconfig({ name: 'east', port: 1 }));
    const unwatchable = (): never => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    };
    const fs = { ...syncFs(), watch: unwatchable };
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      ts.schedule(() => { put(f, kubeconfig({ name: 'east', port: 11 })); }, 12);
      // Rescans only every 10 s: the change at 12 is seen by the poll at 15.
      const provider = kubeconfigFileProvider({ paths: [f], probe: false, rescanIntervalMs: 10_000, pollIntervalMs: 5, debounceMs: 0, scheduler: ts, fileSystem: fs });
      const events = provider.pipe(map((ev) => (ev.type === 'engaged' ? `+${ev.cluster.name}` : ev.type === 'disengaged' ? `-${ev.cluster}` : `${ev.report.type}${ev.report.type === 'error' ? `: ${ev.report.reason}` : ''}`)));
      expectObservable(events, '^ 25ms !').toBe('(xEeP) 9ms (XdEr)', {
        E: '+east', e: 'engaged', P: 'discovered', X: '-east', d: 'disengaged', r: 'reengaged',
        x: `error: cannot watch kubeconfig directory ${dir} (ENOSPC); polling it every 5 ms`,
      });
    });
    expect(fs.calls.reads).toEqual({ 'fleet.kubeconfig': 2 });
  });

  it('should engage each context as soon as its own probe answers, a slow one holding back no other', () => {
    const dir = tempDir();
    put(join(dir, 'fleet.kubeconfig'), kubeconfig({ name: 'east', port: 1 }, { name: 'slow', port: 2 }, { name: 'west', port: 3 }));
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const probe = (c: Cluster) => (c.name === 'slow' ? timer(50, ts).pipe(map(() => E.right(true))) : of(E.right(true)));
      const provider = kubeconfigFileProvider({ paths: [dir], watch: 'off', probe, rescanIntervalMs: 1_000, scheduler: ts, fileSystem: syncFs() });
      const events = provider.pipe(map((ev) => (ev.type === 'engaged' ? `+${ev.cluster.name}` : ev.type === 'disengaged' ? `-${ev.cluster}` : ev.report.type)));
      expectObservable(events, '^ 60ms !').toBe('(EeWw) 44ms (SsP)', { E: '+east', e: 'engaged', W: '+west', w: 'engaged', S: '+slow', s: 'engaged', P: 'discovered' });
    });
  });

  it('should not trust the stamp of a file written in the last 2 s, reading it again (but not parsing it) until it has been still', () => {
    const f = join(tempDir(), 'fresh.kubeconfig');
    writeFileSync(f, kubeconfig({ name: 'east', port: 1 }));
    let now = statSync(f).mtimeMs + 500;
    const fs = { ...syncFs(), now: () => now };
    const cache = kubeconfigFileCache(fs, fs.now);
    const look = (): void => {
      cache.look(f).subscribe();
    };
    look();
    look();
    expect([fs.calls.reads['fresh.kubeconfig'], fs.calls.parses]).toEqual([2, 1]);
    now += 5_000;
    look(); // read once more: now it was still for 2 s before being read, so its stamp is trusted
    look();
    look();
    expect([fs.calls.reads['fresh.kubeconfig'], fs.calls.parses]).toEqual([3, 1]);
  });

  it('should fingerprint a context as contextFingerprint does, and keep what it computed for contexts whose entries did not change', () => {
    const text = kubeconfig({ name: 'east', port: 1 }, { name: 'west', port: 2 });
    const first = loadKubeconfigDocument(parseText(text), '/etc/fleet/a.kubeconfig');
    if (E.isLeft(first)) throw new Error(first.left);
    expect(first.right.contexts.map((c) => c.fingerprint)).toEqual(['east', 'west'].map((n) => contextFingerprint(parseKubeconfig(text, '/etc/fleet'), n)));
    const second = loadKubeconfigDocument(parseText(kubeconfig({ name: 'east', port: 1 }, { name: 'west', port: 22 })), '/etc/fleet/a.kubeconfig', first.right);
    if (E.isLeft(second)) throw new Error(second.left);
    expect(second.right.contexts[0]).toBe(first.right.contexts[0]);
    expect(second.right.contexts[1]?.fingerprint).not.toBe(first.right.contexts[1]?.fingerprint);
  });

  it('should have at most 16 probes in flight, each cluster engaged as soon as its own answers', () => {
    const dir = tempDir();
    const contexts = Array.from({ length: 18 }, (_, i) => ({ name: `c${i}`, port: i + 1 }));
    put(join(dir, 'fleet.kubeconfig'), kubeconfig(...contexts));
    const ts = testScheduler();
    const sent: number[] = [];
    const engagedAt: number[] = [];
    ts.run(() => {
      const probe = () => {
        sent.push(ts.now());
        return timer(10, ts).pipe(map(() => E.right(true)));
      };
      const sub = kubeconfigFileProvider({ paths: [dir], watch: 'off', probe, rescanIntervalMs: 1_000, scheduler: ts, fileSystem: syncFs() }).subscribe((ev) => {
        if (ev.type === 'engaged') engagedAt.push(ts.now());
      });
      ts.schedule(() => { sub.unsubscribe(); }, 100);
    });
    // 16 probes sent at once, the other 2 as the first answers free their places.
    expect(sent).toEqual([...Array<number>(16).fill(0), 10, 10]);
    expect(engagedAt).toEqual([...Array<number>(16).fill(10), 20, 20]);
  });
});
