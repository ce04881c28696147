// `rxfleet get` (the built bin) and custom resources on the run's real kube-apiserver: a CRD
// installed with envtest's installCrds is found through the cluster's discovery by plural.group,
// plural.version.group, singular, kind and short name; a typo gets an error naming the cluster and
// the nearest resource; namespaced custom resources get a NAMESPACE column; `-o yaml` leaves
// managedFields out unless asked; a `kubeconfig:` cluster is named after its file and context.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../src/envtest/index.js';
import type { CustomResourceDefinition } from '../../src/resources/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { BuiltCli } from './cli-support.js';
import { buildCli, renamedContext, runCli } from './cli-support.js';
import { must } from '../support/wait.js';
import { clientFrom, randomName } from './runtime-support.js';

const tag = randomName('ops');
const group = `${tag}.example.com`;
const short = `bk${tag.slice(-8)}`;
const backups: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `backups.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'backups', singular: 'backup', kind: 'Backup', listKind: 'BackupList', shortNames: [short] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { schedule: { type: 'string' } } } } } },
      },
    ],
  },
};
let cli: BuiltCli;
let spec: string;
const ns: string[] = [];

beforeAll(async () => {
  const shared = sharedKubeApiserver();
  const [built] = await Promise.all([buildCli('get-crds'), installCrds(shared, [backups], { timeoutMs: 60_000 })]);
  cli = built;
  ns.push(await shared.createNamespace('crd-a'), await shared.createNamespace('crd-b'));
  const admin = clientFrom('admin', shared.kubeconfigYaml('admin'));
  for (const [namespace, name] of [[ns[0], 'nightly'], [ns[1], 'weekly']] as const) {
    const body = { apiVersion: `${group}/v1`, kind: 'Backup', metadata: { name, namespace }, spec: { schedule: name } };
    must(await admin.raw({ method: 'POST', path: `/apis/${group}/v1/namespaces/${namespace ?? ''}/backups`, body: JSON.stringify(body) }));
  }
  const file = join(mkdtempSync(join(tmpdir(), 'rxfleet-get-crds-')), 'east.yaml');
  writeFileSync(file, renamedContext(shared.kubeconfigYaml('admin'), 'prod'), { mode: 0o600 });
  spec = `kubeconfig:${file}`;
}, 300_000);

const rowsOf = (stdout: string): string[][] =>
  stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/).slice(0, 3));

describe('rxfleet get with custom resources', () => {
  it('finds them by every name discovery gives them, with a NAMESPACE column across namespaces', async () => {
    for (const name of [`backups.${group}`, `backups.v1.${group}`, `backup.${group}`, `Backup.${group}`, short, `${group}/v1/backups`]) {
      const r = await runCli(cli, ['get', name, '-p', spec]);
      expect(r.stderr, name).toBe('');
      expect(r.code, name).toBe(0);
      expect(r.stdout.split('\n')[0], name).toMatch(/^CLUSTER\s+NAMESPACE\s+NAME\s+AGE$/);
      expect(rowsOf(r.stdout), name).toEqual([
        ['east.yaml#prod', ns[0], 'nightly'],
        ['east.yaml#prod', ns[1], 'weekly'],
      ]);
    }
    const one = await runCli(cli, ['get', short, '-p', spec, '-n', ns[1] ?? '']);
    expect(one.code).toBe(0);
    expect(rowsOf(one.stdout)).toEqual([['east.yaml#prod', ns[1], 'weekly']]);
  });

  it('names the cluster and the nearest resource when the name is unknown', async () => {
    const r = await runCli(cli, ['get', `bakcups.${group}`, '-p', spec]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('404 page not found');
    expect(r.stderr).toMatch(/^CLUSTER\s+ERROR\neast\.yaml#prod\s+NotFound: cluster "east\.yaml#prod": /m);
    expect(r.stderr).toContain(`the server has no resource "bakcups.${group}"; did you mean "backups.${group}"?`);
  });

  it('leaves managedFields out of -o yaml and -o json unless --show-managed-fields', async () => {
    const yaml = await runCli(cli, ['get', short, '-p', spec, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toContain('schedule: nightly');
    expect(yaml.stdout).not.toContain('managedFields');
    const json = await runCli(cli, ['get', short, '-p', spec, '-o', 'json']);
    expect(json.stdout).not.toContain('managedFields');
    const shown = await runCli(cli, ['get', short, '-p', spec, '-o', 'yaml', '--show-managed-fields']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('managedFields:');
  });
});
