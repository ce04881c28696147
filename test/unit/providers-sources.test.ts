// The pure parts of discovery: which files are kubeconfigs and how their contexts are named and
// labelled, what a Secret, a Cluster API Cluster or a ClusterProfile turns into (identity, labels,
// skip reasons that name the source), and the namespace-scoped client.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { KubeObject, Secret } from '../../src/index.js';
import { clusterName, configMaps, namespaces as namespaceResource } from '../../src/index.js';
import { controlPlaneInitialized } from '../../src/providers/cluster-api/index.js';
import { clusterSetId, controlPlaneHealthy } from '../../src/providers/cluster-profiles/index.js';
import { profileKubeconfig } from '../../src/providers/cluster-profiles/profile.js';
import { defaultKubeconfigPaths } from '../../src/providers/file/index.js';
import { contextLabels } from '../../src/providers/file/labels.js';
import { expandPaths } from '../../src/providers/file/paths.js';
import { scanKubeconfigFiles, shortFileNames } from '../../src/providers/file/scan.js';
import { parseKindClusters } from '../../src/providers/kind/command.js';
import { secretCandidate } from '../../src/providers/kubeconfig-secrets/candidates.js';
import { scopedClient } from '../../src/providers/namespaces/scoped-client.js';
import { stubClient } from '../../src/testing/index.js';
import { capiDesired, profileDesired } from '../support/provider-desired.js';
import { profileCandidate } from '../../src/providers/cluster-profiles/desired.js';
import type { Candidate } from '../../src/providers/internal/candidates.js';

function kubeconfig(contexts: Record<string, { server: string; token: string }>): string {
  const names = Object.keys(contexts);
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.map((n) => ({ name: n, cluster: { server: contexts[n]?.server } })),
    users: names.map((n) => ({ name: n, user: { token: contexts[n]?.token } })),
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user: n } })),
    'current-context': names[0],
  });
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('kubeconfigFileProvider sources', () => {
  it('should take kubeconfig-looking files from directories, every match of a glob, and plain files, and say which paths gave nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-paths-'));
    mkdirSync(join(dir, 'sub'));
    mkdirSync(join(dir, 'empty'));
    for (const f of ['a.kubeconfig', 'kubeconfig.yaml', 'notes.txt', 'sub/b.yaml', 'sub/c.yaml']) writeFileSync(join(dir, f), '');
    const missing = join(dir, 'missing.kubeconfig');
    const found = expandPaths([dir, join(dir, 'sub', '*.yaml'), join(dir, 'notes.txt'), missing, join(dir, 'empty'), join(dir, '*.json')], ['kubeconfig.yaml', '*.kubeconfig']);
    expect(found.files).toEqual([join(dir, 'a.kubeconfig'), join(dir, 'kubeconfig.yaml'), join(dir, 'notes.txt'), join(dir, 'sub', 'b.yaml'), join(dir, 'sub', 'c.yaml')]);
    expect(found.dirs).toEqual([dir, join(dir, 'empty'), join(dir, 'sub')]);
    expect(found.unmatched).toEqual([
      { path: missing, reason: `kubeconfig path ${missing} does not exist` },
      { path: join(dir, 'empty'), reason: `kubeconfig directory ${join(dir, 'empty')} has no file named kubeconfig.yaml, *.kubeconfig` },
      { path: join(dir, '*.json'), reason: `kubeconfig pattern ${join(dir, '*.json')} matches no file` },
    ]);
  });

  it('should default to $KUBECONFIG as a path list, else ~/.kube/config, else the working directory', () => {
    expect(defaultKubeconfigPaths({ KUBECONFIG: '/a:/b' }, '/nowhere', '/cwd')).toEqual(['/a', '/b']);
    const home = mkdtempSync(join(tmpdir(), 'rxfleet-home-'));
    expect(defaultKubeconfigPaths({}, home, '/cwd')).toEqual(['/cwd']);
    mkdirSync(join(home, '.kube'));
    writeFileSync(join(home, '.kube', 'config'), '');
    expect(defaultKubeconfigPaths({}, home, '/cwd')).toEqual([join(home, '.kube', 'config')]);
  });

  it('should name one candidate per context after the context, fingerprint each context alone, and skip a malformed file with its path and the cause', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-scan-'));
    const f = join(dir, 'fleet.kubeconfig');
    writeFileSync(f, kubeconfig({ east: { server: 'https://127.0.0.1:1', token: 'a' }, west: { server: 'https://127.0.0.1:2', token: 'b' } }));
    const scan = (files: string[]) => scanKubeconfigFiles(files, { separator: '+' });
    const before = new Map([...scan([f]).desired.values()].map((c) => [c.name, c.fingerprint]));
    expect([...before.keys()]).toEqual(['east', 'west']);
    writeFileSync(f, kubeconfig({ east: { server: 'https://127.0.0.1:1', token: 'a' }, west: { server: 'https://127.0.0.1:2', token: 'rotated' } }));
    const after = new Map([...scan([f]).desired.values()].map((c) => [c.name, c.fingerprint]));
    expect(after.get(clusterName('east'))).toBe(before.get(clusterName('east')));
    expect(after.get(clusterName('west'))).not.toBe(before.get(clusterName('west')));

    const bad = join(dir, 'bad.kubeconfig');
    writeFileSync(bad, 'clusters: [ {');
    const both = scan([bad, f]);
    expect([...both.desired.keys()]).toEqual(['east', 'west']);
    expect(both.problems).toEqual([{ type: 'skipped', candidate: bad, reason: expect.stringMatching(/^invalid kubeconfig .*bad\.kubeconfig: unexpected end of the stream/) as unknown }]);
    const good = both.desired.get(clusterName('east'))?.build();
    expect(good !== undefined && E.isRight(good) && [good.right.client.server, good.right.identity]).toEqual(['https://127.0.0.1:1', { provider: 'file', from: 'context "east" of kubeconfig fleet.kubeconfig' }]);
  });

  it('should give files the shortest trailing path that tells them apart', () => {
    expect([...shortFileNames(['/a/east.yaml', '/b/config', '/c/config', '/x/y/config']).values()]).toEqual(['east.yaml', 'b/config', 'c/config', 'y/config']);
    expect([...shortFileNames(['/p/q/config', '/r/q/config']).values()]).toEqual(['p/q/config', 'r/q/config']);
  });

  it('should read labels from the rxfleet.dev/labels context extension, turning scalars into strings and refusing maps', () => {
    const doc = (extension: unknown): unknown => ({ contexts: [{ name: 'east', context: { cluster: 'c', extensions: [{ name: 'other', extension: {} }, { name: 'rxfleet.dev/labels', extension }] } }] });
    expect(contextLabels(doc({ region: 'eu', tier: 1, canary: true }), 'east')).toEqual(E.right({ region: 'eu', tier: '1', canary: 'true' }));
    expect(contextLabels(doc({ region: 'eu' }), 'west')).toEqual(E.right(undefined));
    expect(contextLabels({ contexts: [{ name: 'east', context: { cluster: 'c' } }] }, 'east')).toEqual(E.right(undefined));
    expect(contextLabels(doc(['a']), 'east')).toEqual(E.left('extension rxfleet.dev/labels must map label keys to values'));
    expect(contextLabels(doc({ a: null }), 'east')).toEqual(E.left('extension rxfleet.dev/labels: label "a" must be a string'));
  });
});

describe('kubeconfig Secret candidates', () => {
  const secret = (data: Record<string, string> | undefined, deleting = false): Secret => ({
    metadata: { name: 'east', namespace: 'fleet', ...(deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) },
    ...(data === undefined ? {} : { data }),
  });
  const reason = (s: Secret): string | undefined => {
    const r = secretCandidate(s, 'kubeconfig')?.build();
    return r === undefined ? 'absent' : E.isLeft(r) ? r.left : undefined;
  };

  it('should skip a missing, empty or malformed kubeconfig with a reason naming the Secret, and drop a Secret being deleted', () => {
    expect(reason(secret(undefined))).toBe('Secret fleet/east has no "kubeconfig" key');
    expect(reason(secret({ kubeconfig: b64('  ') }))).toBe('Secret fleet/east has an empty "kubeconfig"');
    expect(reason(secret({ kubeconfig: b64('not: [a kubeconfig') }))).toMatch(/^Secret fleet\/east: invalid kubeconfig: unexpected end of the stream/);
    expect(reason(secret({ kubeconfig: 'bm90IGJhc2U2NCBhdCBhbGwhIQ==' }))).toMatch(/^Secret fleet\/east: invalid kubeconfig: /);
    expect(reason(secret({ kubeconfig: b64(kubeconfig({ a: { server: 'https://127.0.0.1:1', token: 't' } })) }, true))).toBe('absent');
    expect(reason(secret({ kubeconfig: b64(kubeconfig({ a: { server: 'https://127.0.0.1:1', token: 't' } })) }))).toBeUndefined();
  });

  it('should fingerprint the kubeconfig bytes only, and the labels apart (annotations do not matter)', () => {
    const yaml = b64(kubeconfig({ a: { server: 'https://127.0.0.1:1', token: 't' } }));
    const a = secretCandidate(secret({ kubeconfig: yaml }), 'kubeconfig');
    const b = secretCandidate({ ...secret({ kubeconfig: yaml }), metadata: { name: 'east', namespace: 'fleet', labels: { x: 'y' } } }, 'kubeconfig');
    const c = secretCandidate({ ...secret({ kubeconfig: yaml }), metadata: { name: 'east', namespace: 'fleet', annotations: { note: 'n' } } }, 'kubeconfig');
    expect(a?.fingerprint).toBe(b?.fingerprint);
    expect(a?.metaFingerprint).not.toBe(b?.metaFingerprint);
    expect([c?.fingerprint, c?.metaFingerprint]).toEqual([a?.fingerprint, a?.metaFingerprint]);
  });

  it('should give the cluster the Secret as identity and its labels', () => {
    const yaml = b64(kubeconfig({ a: { server: 'https://127.0.0.1:1', token: 't' } }));
    const built = secretCandidate({ ...secret({ kubeconfig: yaml }), metadata: { name: 'east', namespace: 'fleet', labels: { region: 'eu' } } }, 'kubeconfig')?.build();
    expect(built !== undefined && E.isRight(built) && [built.right.identity, built.right.labels]).toEqual([{ provider: 'kubeconfig-secrets', from: 'Secret fleet/east' }, { region: 'eu' }]);
  });
});

describe('Cluster API candidates', () => {
  it('should read control-plane initialisation from v1beta2 status, the v1beta1 condition or controlPlaneReady', () => {
    expect(controlPlaneInitialized({ metadata: {}, status: { initialization: { controlPlaneInitialized: true } } })).toBe(true);
    expect(controlPlaneInitialized({ metadata: {}, status: { conditions: [{ type: 'ControlPlaneInitialized', status: 'True' }] } })).toBe(true);
    expect(controlPlaneInitialized({ metadata: {}, status: { controlPlaneReady: true } })).toBe(true);
    expect(controlPlaneInitialized({ metadata: {}, status: { conditions: [{ type: 'ControlPlaneInitialized', status: 'False' }] } })).toBe(false);
    expect(controlPlaneInitialized({ metadata: {} })).toBe(false);
  });

  it('should name clusters `<namespace>/<name>`, give them the Cluster as identity and its labels, and explain why one is not engaged yet', () => {
    const ready = { initialization: { controlPlaneInitialized: true } };
    const capi = new Map<string, KubeObject>([
      ['ns/ready', { metadata: { namespace: 'ns', name: 'ready', labels: { env: 'prod' } }, status: ready }],
      ['ns/early', { metadata: { namespace: 'ns', name: 'early' } }],
      ['ns/nosecret', { metadata: { namespace: 'ns', name: 'nosecret' }, status: ready }],
    ]);
    const secretsById = new Map<string, Secret>([['ns/ready-kubeconfig', { metadata: { namespace: 'ns', name: 'ready-kubeconfig' }, data: { value: b64(kubeconfig({ a: { server: 'https://127.0.0.1:1', token: 't' } })) } }]]);
    const d = capiDesired(capi, secretsById, controlPlaneInitialized, 'value');
    const why = (n: string): string | undefined => {
      const r = d.get(clusterName(n))?.build();
      return r === undefined || E.isRight(r) ? undefined : r.left;
    };
    expect(why('ns/ready')).toBeUndefined();
    expect(why('ns/early')).toBe('Cluster ns/early: control plane not initialised yet');
    expect(why('ns/nosecret')).toBe('kubeconfig Secret ns/nosecret-kubeconfig of Cluster ns/nosecret not found');
    const built = d.get(clusterName('ns/ready'))?.build();
    expect(built !== undefined && E.isRight(built) && [built.right.identity, built.right.labels]).toEqual([{ provider: 'cluster-api', from: 'Cluster ns/ready' }, { env: 'prod' }]);
    const garbage = new Map([['ns/ready-kubeconfig', { metadata: { namespace: 'ns', name: 'ready-kubeconfig' }, data: { value: b64('clusters: [ {') } }]]);
    const broken = capiDesired(capi, garbage, controlPlaneInitialized, 'value').get(clusterName('ns/ready'))?.build();
    expect(broken !== undefined && E.isLeft(broken) && broken.left).toMatch(/^kubeconfig Secret ns\/ready-kubeconfig of Cluster ns\/ready: invalid kubeconfig: /);
  });
});

describe('ClusterProfile candidates', () => {
  const profile = (status: unknown): KubeObject => ({ metadata: { namespace: 'inv', name: 'p1' }, status });
  const healthy = [{ type: 'ControlPlaneHealthy', status: 'True' }];
  const providers = [{ name: 'tokens', execConfig: { command: '/bin/tokens', args: ['--x'], provideClusterInfo: true } }];

  it('should read ControlPlaneHealthy and build a kubeconfig with the plugin of the first configured access provider', () => {
    expect(controlPlaneHealthy(profile({ conditions: healthy }))).toBe(true);
    expect(controlPlaneHealthy(profile({ conditions: [{ type: 'ControlPlaneHealthy', status: 'Unknown' }] }))).toBe(false);
    const kc = profileKubeconfig(profile({ accessProviders: [{ name: 'other', cluster: { server: 'https://x' } }, { name: 'tokens', cluster: { server: 'https://10.0.0.1', 'certificate-authority-data': 'Q0E=' } }] }), providers);
    expect(typeof kc).toBe('object');
    const doc = JSON.parse(typeof kc === 'string' ? '{}' : kc.yaml) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: { exec: Record<string, unknown> } }[] };
    expect(doc.clusters[0]?.cluster).toEqual({ server: 'https://10.0.0.1', 'certificate-authority-data': 'Q0E=' });
    expect(doc.users[0]?.user.exec).toMatchObject({ command: '/bin/tokens', args: ['--x'], provideClusterInfo: true });
    expect(profileKubeconfig(profile({ credentialProviders: [{ name: 'tokens', cluster: { server: 'https://y' } }] }), providers)).not.toBeTypeOf('string');
    expect(profileKubeconfig(profile({ accessProviders: [{ name: 'other', cluster: { server: 'https://x' } }] }), providers)).toBe('no configured plugin for access providers "other"');
    expect(profileKubeconfig(profile({}), providers)).toBe('status lists no access providers');
  });

  it('should skip an unhealthy profile, naming it, and let readiness depend on the clock', () => {
    const p = profile({ conditions: healthy, accessProviders: [{ name: 'tokens', cluster: { server: 'https://10.0.0.1' } }] });
    const all = new Map([['inv/p1', p]]);
    const at = (now: number) => profileDesired(all, providers, (_p, t) => t >= 10, now).get(clusterName('inv/p1'))?.build();
    const early = at(5);
    expect(early !== undefined && E.isLeft(early) && early.left).toBe('ClusterProfile inv/p1: ControlPlaneHealthy is not True');
    const later = at(10);
    expect(later !== undefined && E.isRight(later)).toBe(true);
  });

  it('should make a healthy profile object\'s candidate once when given `made`, and judge its health each time', () => {
    const p = profile({ conditions: healthy, accessProviders: [{ name: 'tokens', cluster: { server: 'https://10.0.0.1' } }] });
    const made = new WeakMap<KubeObject, Candidate>();
    const judge = (o: KubeObject, now: number) => profileCandidate(o, 'inv/p1', clusterName('inv/p1'), { providers, isReady: (_p, t) => t < 100, now, made });
    const first = judge(p, 0);
    expect(judge(p, 30)).toBe(first);
    // Unhealthy later: skipped, whatever was made.
    expect(judge(p, 100).fingerprint).toMatch(/^skipped:/);
    // A changed profile is a new object: a new candidate.
    expect(judge({ ...p }, 0)).not.toBe(first);
  });

  it('should take the identity from the cluster.clusterset.k8s.io property when published, and the labels from the profile', () => {
    const status = (properties?: unknown[]) => ({ conditions: healthy, accessProviders: [{ name: 'tokens', cluster: { server: 'https://10.0.0.1' } }], ...(properties === undefined ? {} : { properties }) });
    const withId: KubeObject = { metadata: { namespace: 'inv', name: 'p1', labels: { region: 'eu' } }, status: status([{ name: 'clusterset.k8s.io', value: 'set-1' }, { name: 'cluster.clusterset.k8s.io', value: 'east.set-1' }]) };
    expect(clusterSetId(withId)).toBe('east.set-1');
    expect(clusterSetId(profile(status([{ name: 'cluster.clusterset.k8s.io', value: '' }])))).toBeUndefined();
    expect(clusterSetId(profile(status()))).toBeUndefined();
    const build = (p: KubeObject) => profileDesired(new Map([['inv/p1', p]]), providers, () => true, 0).get(clusterName('inv/p1'))?.build();
    const built = build(withId);
    expect(built !== undefined && E.isRight(built) && [built.right.identity, built.right.labels]).toEqual([{ provider: 'cluster-profiles', from: 'ClusterProfile inv/p1', id: 'east.set-1' }, { region: 'eu' }]);
    const anonymous = build(profile(status()));
    expect(anonymous !== undefined && E.isRight(anonymous) && anonymous.right.identity).toEqual({ provider: 'cluster-profiles', from: 'ClusterProfile inv/p1' });
  });
});

describe('kind output', () => {
  it('should read one cluster per line and nothing from an empty listing', () => {
    expect(parseKindClusters('east\nwest\n')).toEqual(['east', 'west']);
    expect(parseKindClusters('')).toEqual([]);
    expect(parseKindClusters('No kind clusters found.\n')).toEqual([]);
  });
});

describe('scopedClient', () => {
  it('should default namespaced calls to its namespace, keep explicit ones, and never close the shared client', async () => {
    const seen: unknown[] = [];
    let closed = false;
    const base = stubClient(clusterName('hub'), {
      list: (_r, opts) => {
        seen.push(opts?.namespace);
        return Promise.resolve(E.right({ metadata: {}, items: [] }));
      },
      close: () => {
        closed = true;
      },
    });
    const c = scopedClient(base, clusterName('team-a'), 'team-a');
    await c.list(configMaps);
    await c.list(configMaps, { namespace: 'other' });
    await c.list(namespaceResource);
    c.close();
    expect(seen).toEqual(['team-a', 'other', 'team-a']);
    expect(c.cluster).toBe('team-a');
    expect(closed).toBe(false);
  });
});
