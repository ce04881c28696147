import { describe, expect, it } from 'vitest';
import { createClusterClient, loadKubeconfig } from '../../src/client/index.js';
import { checkedKubeconfig } from '../../src/client/kubeconfig.js';
import { parseKubeconfig } from '../../src/client/kubeconfig-parse.js';
import { E } from '../../src/fp/index.js';
import { clusterName } from '../../src/index.js';

const east = clusterName('east');
const secretToken = 'sup3r-s3cret-t0ken-value';

function kubeconfig(over: { server?: string; context?: string; user?: string; insecure?: boolean } = {}): string {
  return `apiVersion: v1
kind: Config
current-context: ${over.context ?? 'main'}
clusters:
- name: c
  cluster:
    server: ${over.server ?? 'https://127.0.0.1:6443'}
${over.insecure === true ? '    insecure-skip-tls-verify: true\n' : ''}contexts:
- name: main
  context:
    cluster: c
    user: ${over.user ?? 'u'}
users:
- name: u
  user:
    token: ${secretToken}
`;
}

function errorOf(r: E.Either<{ type: string; message: string }, unknown>): { type: string; message: string } {
  if (E.isRight(r)) throw new Error('expected an error');
  return r.left;
}

describe('loading a kubeconfig', () => {
  it('accepts a well-formed one', () => {
    expect(E.isRight(loadKubeconfig(east, { yaml: kubeconfig() }))).toBe(true);
  });

  it('names the cluster and the YAML problem, without echoing the file (which holds a token)', () => {
    const broken = `${kubeconfig()}\n  : : [unbalanced\n`;
    const e = errorOf(loadKubeconfig(east, { yaml: broken }));
    expect(e.type).toBe('InvalidConfig');
    expect(e.message).toMatch(/^cluster "east": invalid kubeconfig: .+/);
    expect(e.message).not.toContain(secretToken);
  });

  it('says which context is missing', () => {
    const e = errorOf(loadKubeconfig(east, { yaml: kubeconfig(), context: 'nope' }));
    expect(e.message).toContain('context "nope" not found');
  });

  it('says which user is missing', () => {
    const e = errorOf(loadKubeconfig(east, { yaml: kubeconfig({ user: 'ghost' }) }));
    expect(e.message).toContain('user "ghost"');
  });

  it('reports a missing file as such', () => {
    const e = errorOf(loadKubeconfig(east, { file: '/nonexistent/kubeconfig' }));
    expect(e.message).toBe('cluster "east": invalid kubeconfig /nonexistent/kubeconfig: file not found');
  });

  it('refuses plain http unless the kubeconfig itself skips TLS verification', () => {
    expect(errorOf(loadKubeconfig(east, { yaml: kubeconfig({ server: 'http://127.0.0.1:8080' }) })).message).toContain('plain http');
    expect(E.isRight(loadKubeconfig(east, { yaml: kubeconfig({ server: 'http://127.0.0.1:8080', insecure: true }) }))).toBe(true);
  });

  it('refuses a server URL that is not a URL', () => {
    expect(errorOf(createClusterClient(east, { yaml: kubeconfig({ server: 'not a url' }) })).message).toContain('no valid server URL');
  });

  it('checks already parsed entries as loadKubeConfig checks a text, naming the file given, and holds them without a copy', () => {
    const doc = parseKubeconfig(kubeconfig({ server: 'http://127.0.0.1:8080' }));
    const [context] = doc.contexts;
    if (context === undefined) throw new Error('one context expected');
    const entries = { context, cluster: doc.clusters[0], user: doc.users[0] };
    expect(errorOf(checkedKubeconfig(east, entries, '/etc/fleet/a.kubeconfig')).message).toBe(
      'cluster "east": invalid kubeconfig /etc/fleet/a.kubeconfig: plain http server URL without insecure-skip-tls-verify: refusing to send credentials unencrypted',
    );
    expect(errorOf(checkedKubeconfig(east, { ...entries, cluster: undefined })).message).toBe(errorOf(loadKubeconfig(east, { yaml: kubeconfig().replace('- name: c\n', '- name: other\n') })).message);
    const ok = parseKubeconfig(kubeconfig());
    const loaded = checkedKubeconfig(east, { context: ok.contexts[0] ?? context, cluster: ok.clusters[0], user: ok.users[0] });
    if (E.isLeft(loaded)) throw new Error(loaded.left.message);
    expect(loaded.right.user).toBe(ok.users[0]);
    expect(Object.isFrozen(loaded.right.user)).toBe(true);
  });
});
