// The file provider in virtual time over a real temporary directory: clusters are named after
// their contexts (a context name in two files is told apart by the file and reported), carry labels
// and an identity, and every misconfiguration (a missing path, an empty, malformed or unreadable
// file, labels for no cluster) is a report in the provider's stream naming the path and the cause,
// said once while it lasts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { kubeconfigFileProvider } from '../../src/providers/file/index.js';
import { scanKubeconfigFiles } from '../../src/providers/file/scan.js';
import { kubeconfig, show, syncFs, tempDir } from './file-fixtures.js';
import { testScheduler } from './watch-fixtures.js';

describe('kubeconfigFileProvider (virtual time, real files)', () => {
  it('should report a missing path as skipped, naming the path and the cause, once while it stays missing', () => {
    const dir = tempDir();
    const missing = join(dir, 'nowhere', 'fleet.kubeconfig');
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const provider = kubeconfigFileProvider({ paths: [missing], watchDirectories: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: syncFs() });
      // Scans at 0, 10 and 20: one report; the first scan is the first pass (no kubeconfig, so no candidate), said once.
      expectObservable(provider.pipe(map(show)), '^ 25ms !').toBe('(mP)', { m: `!skipped ${missing}: kubeconfig path ${missing} does not exist`, P: '!discovered 0/0' });
    });
  });

  it('should name clusters after their contexts, tell apart a context name two files define and report it, with labels and identities', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.kubeconfig'), kubeconfig({ name: 'east', port: 1, labels: { region: 'eu', tier: 1 } }, { name: 'west', port: 2 }));
    writeFileSync(join(dir, 'b.kubeconfig'), kubeconfig({ name: 'east', port: 3 }));
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const labels = { west: { region: 'us' }, 'b.kubeconfig+east': { tier: 'dev' } };
      const provider = kubeconfigFileProvider({ paths: [dir], watchDirectories: false, probe: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: syncFs(), labels });
      expectObservable(provider.pipe(map(show)), '^ 15ms !').toBe('(dAaBbWwP)', {
        d: `!error : context "east" is defined in 2 kubeconfig files (${join(dir, 'a.kubeconfig')}, ${join(dir, 'b.kubeconfig')}): their clusters are named "a.kubeconfig+east", "b.kubeconfig+east"; rename a context to give its cluster a name of its own`,
        A: '+a.kubeconfig+east [context "east" of kubeconfig a.kubeconfig] {"region":"eu","tier":"1"}',
        a: '!engaged a.kubeconfig+east: ',
        B: '+b.kubeconfig+east [context "east" of kubeconfig b.kubeconfig] {"tier":"dev"}',
        b: '!engaged b.kubeconfig+east: ',
        W: '+west [context "west" of kubeconfig a.kubeconfig] {"region":"us"}',
        w: '!engaged west: ',
        P: '!discovered 3/3',
      });
    });
  });

  it('should never put a path in a cluster name: files with the same base name are told apart by their directories', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'prod'));
    mkdirSync(join(dir, 'dev'));
    writeFileSync(join(dir, 'prod', 'kubeconfig.yaml'), kubeconfig({ name: 'admin', port: 1 }));
    writeFileSync(join(dir, 'dev', 'kubeconfig.yaml'), kubeconfig({ name: 'admin', port: 2 }));
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const provider = kubeconfigFileProvider({ paths: [join(dir, 'prod'), join(dir, 'dev')], watchDirectories: false, probe: false, scheduler: ts, fileSystem: syncFs() });
      const names = provider.pipe(map((ev) => (ev.type === 'engaged' ? ev.cluster.name : ev.type === 'report' && ev.report.type === 'discovered' ? show(ev) : ev.type)));
      expectObservable(names, '^ 5ms !').toBe('(rdDpPQ)', { r: 'report', d: 'dev/kubeconfig.yaml+admin', D: 'report', p: 'prod/kubeconfig.yaml+admin', P: 'report', Q: '!discovered 2/2' });
    });
  });

  it('should report an empty, a malformed and a context-less file as skipped with path and cause, and labels that are not strings or name no cluster as errors', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.kubeconfig');
    const malformed = join(dir, 'malformed.kubeconfig');
    const bare = join(dir, 'bare.kubeconfig');
    writeFileSync(empty, '\n');
    writeFileSync(malformed, 'clusters: [ {\n  token: secret-token');
    writeFileSync(bare, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }));
    writeFileSync(join(dir, 'good.kubeconfig'), kubeconfig({ name: 'good', port: 1, labels: { nested: { no: 'maps' } } }));
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const provider = kubeconfigFileProvider({ paths: [dir], watchDirectories: false, probe: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: syncFs(), labels: { ghost: { a: 'b' } } });
      expectObservable(provider.pipe(map(show)), '^ 15ms !').toBe('(begmlGnP)', {
        b: `!skipped ${bare}: kubeconfig ${bare} has no contexts`,
        e: `!skipped ${empty}: kubeconfig ${empty} is empty`,
        g: `!error : context "good" of kubeconfig ${join(dir, 'good.kubeconfig')}: extension rxfleet.dev/labels: label "nested" must be a string; its labels are ignored`,
        m: `!skipped ${malformed}: invalid kubeconfig ${malformed}: unexpected end of the stream within a flow collection at line 2, column 22`,
        l: '!error : labels are configured for cluster "ghost", which no kubeconfig context is named',
        G: '+good [context "good" of kubeconfig good.kubeconfig] {}',
        n: '!engaged good: ',
        P: '!discovered 1/1',
      });
    });
  });

  // Root reads any file whatever its mode, and CI runs as root: the read is injected, so the
  // permission error is produced the same way for every user.
  it('should report a kubeconfig that cannot be read as skipped with the path and the cause', () => {
    const locked = join(tempDir(), 'locked.kubeconfig');
    const denied = (path: string): string => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
    };
    const scan = scanKubeconfigFiles([locked], { separator: '+', read: denied });
    expect(scan.desired.size).toBe(0);
    expect(scan.problems).toEqual([{ type: 'skipped', candidate: locked, reason: `cannot read kubeconfig ${locked}: permission denied (EACCES)` }]);
  });

  it('should report a directory with no kubeconfig and a pattern that matches nothing', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'not a kubeconfig');
    const pattern = join(dir, '*.yaml');
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      expectObservable(kubeconfigFileProvider({ paths: [dir, pattern], watchDirectories: false, scheduler: ts, fileSystem: syncFs() }).pipe(map(show)), '^ 5ms !').toBe('(dpP)', {
        d: `!skipped ${dir}: kubeconfig directory ${dir} has no file named kubeconfig.yaml, kubeconfig.yml, *.kubeconfig, *.kubeconfig.yaml, *.kubeconfig.yml`,
        p: `!skipped ${pattern}: kubeconfig pattern ${pattern} matches no file`,
        P: '!discovered 0/0',
      });
    });
  });

  it('should refuse options that can never work with a ConfigError', () => {
    expect(() => kubeconfigFileProvider({ paths: [] })).toThrow(ConfigError);
    expect(() => kubeconfigFileProvider({ separator: '' })).toThrow(ConfigError);
    expect(() => kubeconfigFileProvider({ rescanIntervalMs: 0 })).toThrow(/file provider: `rescanIntervalMs` must be a positive number of milliseconds, got 0/);
    expect(() => kubeconfigFileProvider({ debounceMs: -1 })).toThrow(ConfigError);
    expect(() => kubeconfigFileProvider({ probeTimeoutMs: Number.POSITIVE_INFINITY })).toThrow(ConfigError);
  });
});
