// `rxfleet get` (the built bin) against two real kube-apiservers (the run's shared one and one
// started here) and a kcp workspace of the shared kcp, found by the file provider: one table with a
// CLUSTER column, Lists whose items name their cluster, a failed cluster on stderr while the others
// still print, and no cluster at all as an error; and the workspaces bound to a kcp APIExport. A
// cluster's discovery costs two requests (aggregated discovery), counted through an HTTP proxy.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { configMaps } from '../../src/index.js';
import { plainHttpKubeconfig, serverCaPem } from '../faults/faults-support.js';
import { startHttpFaultProxy } from '../support/http-fault-proxy.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import type { KubeApiserverHandle } from '../support/kube-apiserver.js';
import { startKubeApiserver } from '../support/kube-apiserver.js';
import type { BuiltCli } from './cli-support.js';
import { buildCli, renamedContext, runCli } from './cli-support.js';
import { must } from '../support/wait.js';
import { clientFrom, randomName, workspaceCluster } from './runtime-support.js';

const tag = randomName('get');
const selector = `rxfleet-get=${tag}`;
let cli: BuiltCli;
let second: KubeApiserverHandle | undefined;
let dir: string;
const namespaces: Record<string, string> = {};

function writeKubeconfig(into: string, name: string, yaml: string): string {
  const path = join(into, `${name}.kubeconfig`);
  writeFileSync(path, renamedContext(yaml, name), { mode: 0o600 });
  return path;
}

async function seed(client: ClusterClient, namespace: string, cluster: string): Promise<void> {
  must(await client.apply(configMaps, { metadata: { name: `cm-${cluster}`, namespace, labels: { 'rxfleet-get': tag } }, data: { from: cluster } }, { fieldManager: 'test' }));
}

beforeAll(async () => {
  const [built, started, ws] = await Promise.all([buildCli('get'), startKubeApiserver(), workspaceCluster()]);
  cli = built;
  second = started;
  const shared = sharedKubeApiserver();
  namespaces['kas-a'] = await shared.createNamespace('get');
  namespaces['kas-b'] = await started.createNamespace('get');
  namespaces.ws = 'default';
  dir = mkdtempSync(join(tmpdir(), 'rxfleet-get-'));
  const yamls: Record<string, string> = { 'kas-a': shared.kubeconfigYaml('admin'), 'kas-b': started.kubeconfigYaml('admin'), ws: ws.yaml };
  for (const [name, yaml] of Object.entries(yamls)) {
    writeKubeconfig(dir, name, yaml);
    await seed(clientFrom(name, yaml), namespaces[name] ?? 'default', name);
  }
}, 300_000);

afterAll(async () => {
  await second?.stop();
});

describe('rxfleet get', () => {
  it('prints one table across two kube-apiservers and a kcp workspace', async () => {
    const r = await runCli(cli, ['get', 'configmaps', '--provider', `file:${dir}`, '-l', selector]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CLUSTER\s+NAMESPACE\s+NAME\s+AGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['kas-a', namespaces['kas-a'], 'cm-kas-a'],
      ['kas-b', namespaces['kas-b'], 'cm-kas-b'],
      ['ws', 'default', 'cm-ws'],
    ]);
    for (const l of lines.slice(1)) expect(l).toMatch(/\s\d+[smhd]\S*$/);
  });

  it('discovers a kube-apiserver in two requests (aggregated discovery) and lists it in one', async () => {
    const proxy = await startHttpFaultProxy(sharedKubeApiserver().baseUrl, serverCaPem());
    try {
      const one = mkdtempSync(join(tmpdir(), 'rxfleet-get-requests-'));
      writeKubeconfig(one, 'kas-a', plainHttpKubeconfig(proxy.url));
      const ns = namespaces['kas-a'] ?? '';
      const r = await runCli(cli, ['get', 'configmaps', '-p', `file:${one}`, '-n', ns, '-l', selector]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('cm-kas-a');
      expect(proxy.seen.map((s) => `${s.method} ${s.path.split('?')[0] ?? ''}`).sort()).toEqual(['GET /api', `GET /api/v1/namespaces/${ns}/configmaps`, 'GET /apis']);
    } finally {
      await proxy.close();
    }
  });

  it('prints a List whose items name their cluster, as JSON and as YAML, and honours --namespace', async () => {
    const json = await runCli(cli, ['get', 'v1/configmaps', '-p', `file:${dir}`, '-l', selector, '-o', 'json']);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as { kind: string; items: { kind: string; metadata: { name: string; annotations: Record<string, string> }; data: { from: string } }[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => [i.metadata.annotations['rxfleet.dev/cluster'], i.metadata.name, i.data.from]).sort()).toEqual([
      ['kas-a', 'cm-kas-a', 'kas-a'],
      ['kas-b', 'cm-kas-b', 'kas-b'],
      ['ws', 'cm-ws', 'ws'],
    ]);
    const yaml = await runCli(cli, ['get', 'configmaps', '-p', `file:${dir}`, '-l', selector, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toContain('rxfleet.dev/cluster: kas-b');
    const one = await runCli(cli, ['get', 'configmaps', '-p', `kubeconfig:${join(dir, 'kas-b.kubeconfig')},kas-b`, '-n', namespaces['kas-b'] ?? '', '-l', selector]);
    expect(one.code).toBe(0);
    expect(one.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([['kas-b.kubeconfig#kas-b', namespaces['kas-b'], 'cm-kas-b']]);
  });

  it('returns at the end of the one discovery pass of several providers, clusters named after where they came from', async () => {
    // Two kubeconfig files (the first by its current context) and a directory: merged by
    // multiProvider, whose one `discovered` report ends the pass. Before, the command waited for
    // one report per provider, never came, and warned after --timeout-ms.
    const withB = mkdtempSync(join(tmpdir(), 'rxfleet-get-more-'));
    writeKubeconfig(withB, 'kas-b', second?.kubeconfigYaml('admin') ?? '');
    const args = ['-p', `kubeconfig:${join(dir, 'kas-a.kubeconfig')}`, '-p', `kubeconfig:${join(dir, 'ws.kubeconfig')},ws`, '-p', `more=file:${withB}`];
    const r = await runCli(cli, ['get', 'configmaps', ...args, '-l', selector, '--timeout-ms', '20000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['kas-a.kubeconfig#kas-a', namespaces['kas-a'], 'cm-kas-a'],
      ['more#kas-b', namespaces['kas-b'], 'cm-kas-b'],
      ['ws.kubeconfig#ws', 'default', 'cm-ws'],
    ]);
  });

  it('prints the clusters that answer and a row per failed cluster on stderr, exiting 1', async () => {
    const withDown = mkdtempSync(join(tmpdir(), 'rxfleet-get-down-'));
    const shared = sharedKubeApiserver().kubeconfigYaml('admin');
    writeKubeconfig(withDown, 'kas-a', shared);
    // A server nobody listens on: same credentials, port 1.
    writeKubeconfig(withDown, 'down', shared.replace(/https:\/\/127\.0\.0\.1:\d+/g, 'https://127.0.0.1:1'));
    const r = await runCli(cli, ['get', 'configmaps', '-p', `file:${withDown}`, '-l', selector]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^CLUSTER\s+NAMESPACE\s+NAME\s+AGE\nkas-a\s+\S+\s+cm-kas-a\s+\S+\n$/);
    expect(r.stderr).toMatch(/^CLUSTER\s+ERROR\ndown\s+ClusterUnreachable: cluster "down"/m);
  });

  it('says so, exiting 1, when the provider finds no cluster', async () => {
    const empty = join(mkdtempSync(join(tmpdir(), 'rxfleet-get-none-')), 'nothing-here');
    mkdirSync(empty);
    const r = await runCli(cli, ['get', 'configmaps', '-p', `file:${empty}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`rxfleet get: no cluster found by file:${empty}`);
    const bad = await runCli(cli, ['get', 'widgets.example.com/v1/widgets/x', '-p', `file:${empty}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rxfleet: resource "widgets.example.com/v1/widgets/x": expected');
  });

  it('lists a custom resource in every workspace bound to a kcp APIExport', async () => {
    const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 2 });
    for (const [i, ws] of fx.consumers.entries()) {
      const body = { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: `w${i}`, namespace: 'default' }, spec: { size: i } };
      await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, body);
    }
    const providerKubeconfig = join(mkdtempSync(join(tmpdir(), 'rxfleet-get-kcp-')), 'provider.kubeconfig');
    writeFileSync(providerKubeconfig, fx.providerKubeconfig(), { mode: 0o600 });
    const r = await runCli(cli, ['get', `${fx.group}/v1/widgets`, '-p', `apiexport:${fx.exportName},${providerKubeconfig}`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { items: { kind: string; metadata: { name: string; annotations: Record<string, string> } }[] };
    expect(list.items.map((i) => [i.kind, i.metadata.name]).sort()).toEqual([
      ['Widget', 'w0'],
      ['Widget', 'w1'],
    ]);
    // One workspace each: the clusters are the consumers' logical clusters, two different ones.
    expect(new Set(list.items.map((i) => i.metadata.annotations['rxfleet.dev/cluster'])).size).toBe(2);
  });
});
