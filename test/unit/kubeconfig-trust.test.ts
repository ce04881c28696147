// A kubeconfig from a Secret may not run programs or read files in the controller's pod unless the
// operator allows them by name: each refused field, the allow-list, and the providers' skip reasons.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject, Secret } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, namespaces } from '../../src/index.js';
import { profileKubeconfig } from '../../src/providers/cluster-profiles/profile.js';
import type { KubeconfigTrust } from '../../src/client/index.js';
import { secretCandidate } from '../../src/providers/kubeconfig-secrets/candidates.js';
import { refusedKubeconfigField } from '../../src/providers/internal/trust.js';
import { capiDesired, profileDesired } from '../support/provider-desired.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}, more: { users?: unknown[] } = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': 'Q0E=', ...cluster } }],
    users: [{ name: 'u', user }, ...(more.users ?? [])],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  });
}
const exec = (command: unknown, env?: unknown[]) => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: ['token'], ...(env === undefined ? {} : { env }) } });
const none: KubeconfigTrust = {};

describe('kubeconfig fields refused from a Secret', () => {
  it.each([
    ['an exec plugin', exec('aws'), 'users[0].user.exec', 'it runs "aws"; allow the command with trust.execCommands'],
    ['an exec plugin without a command', { exec: { apiVersion: 'v1' } }, 'users[0].user.exec', 'it names no command; allow the command with trust.execCommands'],
    ['token-file', { 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' }, 'users[0].user.token-file', 'it reads "/var/run/secrets/kubernetes.io/serviceaccount/token"; allow the file with trust.files'],
    ['tokenFile (client-go spelling)', { tokenFile: '/etc/token' }, 'users[0].user.tokenFile', 'it reads "/etc/token"; allow the file with trust.files'],
    ['client-certificate', { 'client-certificate': '/etc/cert.pem', 'client-key-data': 'S0VZ' }, 'users[0].user.client-certificate', 'it reads "/etc/cert.pem"; allow the file with trust.files'],
    ['client-key', { 'client-certificate-data': 'Q0VSVA==', 'client-key': '/etc/key.pem' }, 'users[0].user.client-key', 'it reads "/etc/key.pem"; allow the file with trust.files'],
    ['a file descriptor', { 'client-key': 0 }, 'users[0].user.client-key', 'it reads "0"; allow the file with trust.files'],
    ["an auth provider's token file", { 'auth-provider': { name: 'file', config: { tokenFile: '/etc/t' } } }, 'users[0].user.auth-provider.config.tokenFile', 'it reads "/etc/t"; allow the file with trust.files'],
    ["an auth provider's IdP CA file", { 'auth-provider': { name: 'oidc', config: { 'idp-certificate-authority': '/etc/ca' } } }, 'users[0].user.auth-provider.config.idp-certificate-authority', 'it reads "/etc/ca"; allow the file with trust.files'],
  ])('refuses %s', (_what, user, field, why) => {
    expect(refusedKubeconfigField(kubeconfig(user), none)).toBe(`kubeconfig field ${field} is not allowed from a Secret (${why})`);
  });

  it('refuses a certificate-authority file of a cluster', () => {
    expect(refusedKubeconfigField(kubeconfig({ token: 't' }, { 'certificate-authority': '/etc/shadow' }), none)).toBe(
      'kubeconfig field clusters[0].cluster.certificate-authority is not allowed from a Secret (it reads "/etc/shadow"; allow the file with trust.files)',
    );
  });

  it('refuses a cluster that turns off server certificate verification, unless trust allows it', () => {
    const yaml = kubeconfig({ token: 't' }, { 'insecure-skip-tls-verify': true });
    expect(refusedKubeconfigField(yaml, none)).toBe(
      'kubeconfig field clusters[0].cluster.insecure-skip-tls-verify is not allowed from a Secret (it turns off verification of the server certificate; allow it with trust.insecureSkipTLSVerify)',
    );
    expect(refusedKubeconfigField(yaml, { insecureSkipTLSVerify: true })).toBeUndefined();
    // Only an exact `true` turns verification off in the loader, so only that is refused.
    expect(refusedKubeconfigField(kubeconfig({ token: 't' }, { 'insecure-skip-tls-verify': 'true' }), none)).toBeUndefined();
  });

  it("refuses an auth provider's shell command even when the same command is allowed for exec plugins", () => {
    const user = { 'auth-provider': { name: 'gcp', config: { 'cmd-path': '/usr/bin/gcloud', 'cmd-args': 'config config-helper; curl evil' } } };
    expect(refusedKubeconfigField(kubeconfig(user), { execCommands: ['/usr/bin/gcloud'] })).toMatch(/^kubeconfig field users\[0\]\.user\.auth-provider\.config\.cmd-path is not allowed from a Secret \(client-node runs it through a shell/);
  });

  it('checks every user, not only the current context’s, since client-node reads token files of all of them', () => {
    const yaml = kubeconfig({ token: 't' }, {}, { users: [{ name: 'other', user: { 'token-file': '/etc/other' } }] });
    expect(refusedKubeconfigField(yaml, none)).toMatch(/^kubeconfig field users\[1\]\.user\.token-file /);
  });

  it('reads YAML as client-node does (the same parser), aliases included', () => {
    const yaml = [
      'apiVersion: v1',
      'kind: Config',
      'x-base: &base {token-file: /etc/aliased}',
      'clusters: [{name: c, cluster: {server: "https://10.0.0.1"}}]',
      'users:',
      '- name: u',
      '  user: *base',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
    ].join('\n');
    expect(refusedKubeconfigField(yaml, none)).toMatch(/^kubeconfig field users\[0\]\.user\.token-file is not allowed .*"\/etc\/aliased"/);
  });

  it('refuses YAML it cannot parse, with the position and without echoing the text', () => {
    const why = refusedKubeconfigField('users: [ {token: s3cret', none);
    expect(why).toMatch(/^invalid kubeconfig: .* at line \d+, column \d+$/);
    expect(why).not.toContain('s3cret');
  });

  it('accepts inline credentials with no trust at all', () => {
    for (const user of [{ token: 't' }, { 'client-certificate-data': 'Q0VSVA==', 'client-key-data': 'S0VZ' }, { username: 'a', password: 'b' }, { 'auth-provider': { name: 'oidc', config: { 'id-token': 'x', 'idp-certificate-authority-data': 'Q0E=' } } }]) {
      expect(refusedKubeconfigField(kubeconfig(user), none)).toBeUndefined();
    }
  });
});

describe('the trust allow-list', () => {
  it('allows exactly the exec commands it names, with their arguments and ordinary environment', () => {
    const trust: KubeconfigTrust = { execCommands: ['aws', '/usr/local/bin/gke-gcloud-auth-plugin'] };
    expect(refusedKubeconfigField(kubeconfig(exec('aws', [{ name: 'AWS_PROFILE', value: 'prod' }])), trust)).toBeUndefined();
    expect(refusedKubeconfigField(kubeconfig(exec('/usr/local/bin/gke-gcloud-auth-plugin')), trust)).toBeUndefined();
    expect(refusedKubeconfigField(kubeconfig(exec('/usr/bin/aws')), trust)).toMatch(/it runs "\/usr\/bin\/aws"/);
    expect(refusedKubeconfigField(kubeconfig(exec('sh')), trust)).toMatch(/^kubeconfig field users\[0\]\.user\.exec is not allowed/);
  });

  it.each(['PATH', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS'])('refuses %s in the environment of an allowed command', (name) => {
    const yaml = kubeconfig(exec('aws', [{ name: 'AWS_PROFILE', value: 'prod' }, { name, value: '/tmp/evil' }]));
    expect(refusedKubeconfigField(yaml, { execCommands: ['aws'] })).toBe(
      `kubeconfig field users[0].user.exec.env[1] is not allowed from a Secret (it sets "${name}", which changes what the allowed command runs)`,
    );
  });

  it('allows exactly the files it names', () => {
    const trust: KubeconfigTrust = { files: ['/var/run/secrets/eks/token', '/etc/fleet/ca.pem'] };
    expect(refusedKubeconfigField(kubeconfig({ 'token-file': '/var/run/secrets/eks/token' }, { 'certificate-authority': '/etc/fleet/ca.pem' }), trust)).toBeUndefined();
    expect(refusedKubeconfigField(kubeconfig({ 'token-file': '/var/run/secrets/eks/../../kubernetes.io/serviceaccount/token' }), trust)).toMatch(/token-file is not allowed/);
    // A file allowed is not a command allowed, and the other way round.
    expect(refusedKubeconfigField(kubeconfig(exec('/etc/fleet/ca.pem')), trust)).toMatch(/exec is not allowed/);
    expect(refusedKubeconfigField(kubeconfig({ 'client-key': 'aws' }), { execCommands: ['aws'] })).toMatch(/client-key is not allowed/);
  });
});

describe('Secret-sourced candidates', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const secret = (yaml: string): Secret => ({ metadata: { namespace: 'fleet', name: 'east' }, data: { kubeconfig: b64(yaml) } });
  const built = (c: ReturnType<typeof secretCandidate>) => c?.build();

  it('skips a kubeconfig-secrets candidate naming the Secret and the field, without reading the file', async () => {
    const read = vi.spyOn(fs, 'readFileSync');
    const refused = built(secretCandidate(secret(kubeconfig({ 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' })), 'kubeconfig'));
    expect(refused !== undefined && E.isLeft(refused) && refused.left).toBe(
      'Secret fleet/east: kubeconfig field users[0].user.token-file is not allowed from a Secret (it reads "/var/run/secrets/kubernetes.io/serviceaccount/token"; allow the file with trust.files)',
    );
    const execRefused = built(secretCandidate(secret(kubeconfig(exec('aws'))), 'kubeconfig'));
    expect(execRefused !== undefined && E.isLeft(execRefused) && execRefused.left).toBe(
      'Secret fleet/east: kubeconfig field users[0].user.exec is not allowed from a Secret (it runs "aws"; allow the command with trust.execCommands)',
    );
    expect(read.mock.calls.filter(([p]) => String(p).includes('serviceaccount'))).toEqual([]);
    // Refused means no client at all, so nothing reads the file later either. An allowed token file
    // is read when a request needs credentials: one that is not there fails that request, naming it.
    const allowed = join(fs.mkdtempSync(join(tmpdir(), 'rxfleet-trust-')), 'token');
    const ok = built(secretCandidate(secret(kubeconfig({ 'token-file': allowed })), 'kubeconfig', { files: [allowed] }));
    if (ok === undefined || E.isLeft(ok)) throw new Error('expected the allowed token file to build');
    const r = await ok.right.client.list(namespaces);
    ok.right.client.close();
    expect(E.isLeft(r) && r.left.message).toContain(`could not obtain credentials: cannot read token file ${allowed} (file not found)`);
  });

  it('builds the same Secret once trust allows the command', () => {
    const ok = built(secretCandidate(secret(kubeconfig(exec('aws'))), 'kubeconfig', { execCommands: ['aws'] }));
    expect(ok !== undefined && E.isRight(ok)).toBe(true);
    if (ok !== undefined && E.isRight(ok)) ok.right.client.close();
  });

  it('skips a Cluster API candidate naming its kubeconfig Secret and the field', () => {
    const capi = new Map<string, KubeObject>([['ns/a', { metadata: { namespace: 'ns', name: 'a' }, status: { initialization: { controlPlaneInitialized: true } } }]]);
    const secrets = new Map<string, Secret>([['ns/a-kubeconfig', { metadata: { namespace: 'ns', name: 'a-kubeconfig' }, data: { value: b64(kubeconfig(exec('aws'))) } }]]);
    const ready = () => true;
    const refused = capiDesired(capi, secrets, ready, 'value').get(clusterName('ns/a'))?.build();
    expect(refused !== undefined && E.isLeft(refused) && refused.left).toBe(
      'kubeconfig Secret ns/a-kubeconfig of Cluster ns/a: kubeconfig field users[0].user.exec is not allowed from a Secret (it runs "aws"; allow the command with trust.execCommands)',
    );
    const ok = capiDesired(capi, secrets, ready, 'value', { execCommands: ['aws'] }).get(clusterName('ns/a'))?.build();
    expect(ok !== undefined && E.isRight(ok)).toBe(true);
    if (ok !== undefined && E.isRight(ok)) ok.right.client.close();
  });

  it("keeps a ClusterProfile's operator-configured exec plugin, and refuses a CA file path its status publishes", () => {
    const providers = [{ name: 'tokens', execConfig: { command: '/bin/tokens' } }];
    const status = (cluster: Record<string, unknown>) => ({ conditions: [{ type: 'ControlPlaneHealthy', status: 'True' }], accessProviders: [{ name: 'tokens', cluster }] });
    const profile = (cluster: Record<string, unknown>): KubeObject => ({ metadata: { namespace: 'inv', name: 'p1' }, status: status(cluster) });
    const ok = profileDesired(new Map([['inv/p1', profile({ server: 'https://10.0.0.1' })]]), providers, () => true, 0).get(clusterName('inv/p1'))?.build();
    expect(ok !== undefined && E.isRight(ok)).toBe(true);
    if (ok !== undefined && E.isRight(ok)) ok.right.client.close();
    expect(profileKubeconfig(profile({ server: 'https://10.0.0.1', 'certificate-authority': '/etc/shadow' }), providers)).toBe(
      'access provider "tokens" publishes certificate-authority, a file path the controller does not read from a ClusterProfile (publish certificate-authority-data)',
    );
  });
});
