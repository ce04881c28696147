// What the file provider keeps of a context's credentials: its parsed entries once (no kubeconfig
// text besides them), deeply frozen since its clients share them, and never the same objects as
// another cluster's, even when two contexts name one cluster or user entry. A context its entries
// cannot make a client of is skipped with the file and the cause, as before the entries were kept
// parsed, and a change the loader does not read keeps what was computed for the context.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import { kubeconfigFileProvider } from '../../src/providers/file/index.js';
import type { LoadedFile } from '../../src/providers/file/load-file.js';
import { loadKubeconfigDocument } from '../../src/providers/file/load-file.js';
import { parseText } from '../../src/providers/file/parse-document.js';
import { show, syncFs, tempDir } from './file-fixtures.js';
import { testScheduler } from './watch-fixtures.js';

const token = 'secret-token-0123456789';
const caData = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

/** Two contexts, `admin` and `view`, naming the same cluster and user entries. */
function shared(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'east', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': caData, ...extra } }],
    users: [{ name: 'u', user: { token, exec: { command: 'fetch-token', args: ['--cluster', 'east'], env: [{ name: 'A', value: '1' }] } } }],
    contexts: ['admin', 'view'].map((name) => ({ name, context: { cluster: 'east', user: 'u' } })),
  });
}

function load(text: string, previous?: LoadedFile): LoadedFile {
  const loaded = loadKubeconfigDocument(parseText(text), '/etc/fleet/a.kubeconfig', previous);
  if (E.isLeft(loaded)) throw new Error(loaded.left);
  return loaded.right;
}

describe('kubeconfigFileProvider keeps each context’s credentials once, of its own', () => {
  it('should keep a context’s token and CA once (no kubeconfig text beside its entries)', () => {
    const [admin] = load(shared()).contexts;
    const json = JSON.stringify(admin);
    expect(json.split(token).length - 1).toBe(1);
    expect(json.split(caData).length - 1).toBe(1);
  });

  it('should give each context entries of its own, deeply frozen, when two contexts name the same cluster and user', () => {
    const [admin, view] = load(shared()).contexts;
    if (admin === undefined || view === undefined) throw new Error('two contexts expected');
    expect(admin.entries.cluster).toEqual(view.entries.cluster);
    expect(admin.entries.cluster).not.toBe(view.entries.cluster);
    expect(admin.entries.user).not.toBe(view.entries.user);
    expect(admin.entries.user?.exec?.args).not.toBe(view.entries.user?.exec?.args);
    for (const c of [admin, view]) {
      expect(Object.isFrozen(c.entries.user)).toBe(true);
      expect(Object.isFrozen(c.entries.user?.exec?.args)).toBe(true);
      expect(Object.isFrozen(c.entries.user?.exec?.env?.[0])).toBe(true);
      expect(Object.isFrozen(c.entries.cluster)).toBe(true);
    }
    expect(admin.fingerprint).toBe(view.fingerprint);
  });

  it('should keep a context’s object when a change touches nothing the loader reads, and make a new one when its credentials change', () => {
    const first = load(shared());
    const same = load(shared({ extensions: [{ name: 'example.com/note', extension: { note: 'ignored' } }] }), first);
    expect(same.contexts[0]).toBe(first.contexts[0]);
    const rotated = load(shared().replace(token, 'rotated-token'), first);
    expect(rotated.contexts[0]).not.toBe(first.contexts[0]);
    expect(rotated.contexts[0]?.fingerprint).not.toBe(first.contexts[0]?.fingerprint);
  });

  it('should skip a context its entries cannot make a client of, naming the file and the cause', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'a.kubeconfig'),
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:8080' } }, { name: 'd', cluster: { server: 'https://127.0.0.1:6443' } }],
        users: [{ name: 'u', user: { token } }],
        contexts: [
          { name: 'plain', context: { cluster: 'c', user: 'u' } },
          { name: 'nobody', context: { cluster: 'd', user: 'missing' } },
          { name: 'nowhere', context: { cluster: 'missing', user: 'u' } },
        ],
      }),
    );
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const provider = kubeconfigFileProvider({ paths: [dir], watch: 'off', probe: false, rescanIntervalMs: 10, scheduler: ts, fileSystem: syncFs() });
      expectObservable(provider.pipe(map(show)), '^ 5ms !').toBe('(abcP)', {
        a: '!skipped plain: context "plain" of kubeconfig a.kubeconfig: invalid kubeconfig: plain http server URL without insecure-skip-tls-verify: refusing to send credentials unencrypted',
        b: '!skipped nobody: context "nobody" of kubeconfig a.kubeconfig: invalid kubeconfig: context "nobody" names user "missing", which is not defined',
        c: '!skipped nowhere: context "nowhere" of kubeconfig a.kubeconfig: invalid kubeconfig: context "nowhere" names cluster "missing", which is not defined',
        P: '!discovered 0/3',
      });
    });
  });
});
