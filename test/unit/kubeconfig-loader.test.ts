// rxfleet's own kubeconfig loader: what users rely on from kubectl's kubeconfigs, read without
// @kubernetes/client-node. Credentials are checked as the transport gets them (`credentials()`).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedKubeconfig } from '../../src/client/index.js';
import { authFromKubeconfig, loadKubeconfig } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName } from '../../src/index.js';

const east = clusterName('east');
const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'main',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443/', ...cluster } }],
    contexts: [
      { name: 'main', context: { cluster: 'c', user: 'u', namespace: 'apps' } },
      { name: 'other', context: { cluster: 'c', user: 'v' } },
    ],
    users: [
      { name: 'u', user },
      { name: 'v', user: { token: 'other-token' } },
    ],
    ...extra,
  });
}

function loaded(yaml: string, more: { context?: string; directory?: string } = {}): LoadedKubeconfig {
  const kc = loadKubeconfig(east, { yaml, ...more });
  if (E.isLeft(kc)) throw new Error(kc.left.message);
  return kc.right;
}

function refusal(yaml: string): string {
  const kc = loadKubeconfig(east, { yaml });
  if (E.isRight(kc)) throw new Error('expected an error');
  return kc.left.message;
}

const dir = (): string => mkdtempSync(join(tmpdir(), 'rxfleet-kc-'));

describe("rxfleet's kubeconfig loader", () => {
  it('selects the current context, or the one given, with its cluster, user and namespace', () => {
    const kc = loaded(kubeconfig({ token: 't' }));
    expect(kc.context).toEqual({ name: 'main', cluster: 'c', user: 'u', namespace: 'apps' });
    expect(kc.cluster.server).toBe('https://127.0.0.1:6443');
    expect(loaded(kubeconfig({ token: 't' }), { context: 'other' }).user.token).toBe('other-token');
  });

  it('reads YAML as kubectl writes it, tokenFile and token-file alike', () => {
    const yaml = ['current-context: x', 'clusters:', '- name: k', '  cluster: {server: "https://k:6443", tls-server-name: kube.internal}', 'contexts:', '- name: x', '  context: {cluster: k, user: me}', 'users:', '- name: me', '  user: {tokenFile: /t}'].join('\n');
    const kc = loaded(yaml);
    expect(kc.user.tokenFile).toBe('/t');
    expect(kc.cluster.tlsServerName).toBe('kube.internal');
    expect(loaded(kubeconfig({ 'token-file': '/t2' })).user.tokenFile).toBe('/t2');
  });

  it('gives a static token, CA data, tls-server-name and verification on by default', async () => {
    const creds = await authFromKubeconfig(loaded(kubeconfig({ token: 'tok' }, { 'certificate-authority-data': b64('CA-PEM'), 'tls-server-name': 'kube.internal' }))).credentials();
    expect(creds.headers).toEqual({ Authorization: 'Bearer tok' });
    expect(String(creds.ca)).toBe('CA-PEM');
    expect(creds.servername).toBe('kube.internal');
    expect(creds.rejectUnauthorized).toBe(true);
  });

  it('reads client certificates and CA from files relative to the kubeconfig file, on first use', async () => {
    const d = dir();
    for (const [f, v] of [['ca.pem', 'CA'], ['cert.pem', 'CERT'], ['key.pem', 'KEY']] as const) writeFileSync(join(d, f), v);
    const yaml = kubeconfig({ 'client-certificate': 'cert.pem', 'client-key': 'key.pem' }, { 'certificate-authority': 'ca.pem' });
    writeFileSync(join(d, 'config'), yaml);
    const kc = loadKubeconfig(east, { file: join(d, 'config') });
    if (E.isLeft(kc)) throw new Error(kc.left.message);
    expect(kc.right.user.certFile).toBe(join(d, 'cert.pem'));
    const creds = await authFromKubeconfig(kc.right).credentials();
    expect([String(creds.ca), String(creds.cert), String(creds.key)]).toEqual(['CA', 'CERT', 'KEY']);
    expect(creds.headers).toEqual({});
    expect(loaded(yaml, { directory: d }).cluster.caFile).toBe(join(d, 'ca.pem'));
  });

  it('takes certificate data as base64, as kubectl does', async () => {
    const creds = await authFromKubeconfig(loaded(kubeconfig({ 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') }))).credentials();
    expect([String(creds.cert), String(creds.key)]).toEqual(['CERT', 'KEY']);
  });

  it('rejects naming the file when a credential file is missing, and reads it again next time', async () => {
    const d = dir();
    const auth = authFromKubeconfig(loaded(kubeconfig({ token: 't' }, { 'certificate-authority': join(d, 'ca.pem') })));
    await expect(auth.credentials()).rejects.toThrow(`cannot read certificate-authority ${join(d, 'ca.pem')} (file not found)`);
    writeFileSync(join(d, 'ca.pem'), 'CA');
    expect(String((await auth.credentials()).ca)).toBe('CA');
  });

  it('reads a token file when needed, trimmed, and again after a 401', async () => {
    const d = dir();
    const file = join(d, 'token');
    writeFileSync(file, 'first\n');
    const auth = authFromKubeconfig(loaded(kubeconfig({ tokenFile: file })));
    expect(auth.dynamic).toBe(true);
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer first');
    writeFileSync(file, 'second');
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer first'); // cached for a minute
    auth.invalidate();
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer second');
  });

  it('sends basic auth and impersonation headers', async () => {
    const creds = await authFromKubeconfig(loaded(kubeconfig({ username: 'admin', password: 'pw', as: 'jane' }))).credentials();
    expect(creds.headers).toEqual({ Authorization: `Basic ${b64('admin:pw')}`, 'Impersonate-User': 'jane' });
  });

  it('runs an exec plugin for the token and keeps it until it nears expiry', async () => {
    const d = dir();
    const plugin = join(d, 'plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\necho run >> "${join(d, 'runs')}"\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`);
    chmodSync(plugin, 0o755);
    const auth = authFromKubeconfig(loaded(kubeconfig({ exec: { command: plugin, apiVersion: 'client.authentication.k8s.io/v1' } })));
    expect(auth.dynamic).toBe(true);
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer from-plugin');
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer from-plugin');
  });

  it('turns verification off only when the kubeconfig itself says insecure-skip-tls-verify: true', async () => {
    expect((await authFromKubeconfig(loaded(kubeconfig({ token: 't' }, { 'insecure-skip-tls-verify': true }))).credentials()).rejectUnauthorized).toBe(false);
    expect((await authFromKubeconfig(loaded(kubeconfig({ token: 't' }, { 'insecure-skip-tls-verify': 'true' }))).credentials()).rejectUnauthorized).toBe(true);
  });

  it.each([
    ['proxy-url', kubeconfig({ token: 't' }, { 'proxy-url': 'http://proxy:3128' }), 'cluster "c" sets proxy-url, which rxfleet does not support yet'],
    ['an exec plugin without a command', kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1' } }), 'user "u" has an exec plugin without a command'],
    ['a token and a password', kubeconfig({ token: 't', username: 'a', password: 'b' }), 'user "u" sets both a token and a username/password'],
    ['a cluster without a server', kubeconfig({ token: 't' }, { server: '' }), 'clusters[0].cluster.server is missing'],
    ['a user without a name', kubeconfig({ token: 't' }, {}, { users: [{ user: { token: 'secret-value' } }] }), 'users[0].name is missing'],
    ['exec args that are not a list', kubeconfig({ exec: { command: 'x', args: 'a b' } }), 'users[0].user.exec.args must be a list of strings'],
    ['a document that is not a mapping', '- a\n- b\n', 'not a kubeconfig'],
  ])('refuses %s, saying so', (_, yaml, why) => {
    const message = refusal(yaml);
    expect(message).toContain(why);
    expect(message).not.toContain('secret-value');
  });

  it("gets an auth-provider user's token through @kubernetes/client-node, loaded on first use", async () => {
    const d = dir();
    writeFileSync(join(d, 'token'), 'provider-token');
    const auth = authFromKubeconfig(loaded(kubeconfig({ 'auth-provider': { name: 'file', config: { tokenFile: join(d, 'token') } } })));
    expect(auth.dynamic).toBe(true);
    expect((await auth.credentials()).headers.Authorization).toBe('Bearer provider-token');
  });

  it('copies a client-node KubeConfig, keeping tls-server-name', async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfig({ token: 'copied' }, { 'tls-server-name': 'kube.internal' }));
    const kc = loadKubeconfig(east, { loaded: kubeConfig, context: 'main' });
    expect(E.isRight(kc) && [kc.right.user.token, kc.right.cluster.tlsServerName]).toEqual(['copied', 'kube.internal']);
  });
});
