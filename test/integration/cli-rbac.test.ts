// The built `rxfleet` bin: its Node version check (under the system Node 20), its help, and
// `rxfleet rbac` for examples/hello applied to a real kube-apiserver: the example then runs under
// that ServiceAccount's token (not admin) and converges; with one verb taken away it reports a
// 403 naming the verb and the resource.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject, ResourceDescriptor } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { clusterRoleBindings, clusterRoles, roleBindings, roles } from '../../src/resources/index.js';
import type { RoleDocument } from '../../packages/cli/src/rbac-rules.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { BuiltCli } from './cli-support.js';
import { buildCli, runCli, serviceAccountKubeconfig, systemNode } from './cli-support.js';
import { buildExamples, kubeconfigFile, startExample, terminate } from './examples-support.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let cli: BuiltCli;
beforeAll(async () => {
  cli = await buildCli('rbac');
  await buildExamples();
}, 300_000);

describe('the rxfleet bin', () => {
  it('refuses Node 20 in one line, before loading anything, with exit code 1', async () => {
    const r = await runCli(cli, ['--help'], await systemNode());
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^rxfleet needs Node ≥ 22\.19; this is v20\.\d+\.\d+\n$/);
  });

  it('lists its commands and prints a completion script under Node 24', async () => {
    const help = await runCli(cli, ['--help']);
    expect(help.code).toBe(0);
    for (const c of ['rxfleet rbac <module>', 'rxfleet get <resource>', 'rxfleet completion']) expect(help.stdout).toContain(c);
    const completion = await runCli(cli, ['completion']);
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('###-begin-rxfleet-completions-###');
    const wrong = await runCli(cli, ['frobnicate']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('rxfleet: Unknown argument: frobnicate');
  });
});

describe('rxfleet rbac on TypeScript sources', () => {
  it('says to build first, and which built module to give, instead of a bare "Cannot find module"', async () => {
    // A project as `rxfleet init` lays it out: src/main.ts imports './backup.js', as TypeScript
    // writes it; Node loads main.ts by stripping its types, but backup.js exists only once built.
    const project = mkdtempSync(join(tmpdir(), 'rxfleet-rbac-ts-'));
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'backup.ts'), "export const backup: { name: string } = { name: 'backup' };\n");
    writeFileSync(join(project, 'src', 'main.ts'), "import { backup } from './backup.js';\nexport default backup;\n");
    const entry = join(project, 'src', 'main.ts');
    const unbuilt = await runCli(cli, ['rbac', entry]);
    expect(unbuilt).toMatchObject({ code: 2, stdout: '' });
    expect(unbuilt.stderr).toBe(
      `rxfleet: rbac: ${entry} cannot be loaded: ${join(project, 'src', 'backup.js')} does not exist, only its TypeScript ${join(project, 'src', 'backup.ts')}. Build the project first (npm run build), then give the built JavaScript, e.g. rxfleet rbac ${join(project, 'dist', 'main.js')}\n`,
    );
    mkdirSync(join(project, 'dist'));
    const widgets = "{ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true }";
    writeFileSync(join(project, 'dist', 'main.js'), `export default { name: 'backup', resource: ${widgets}, reconcile: () => undefined, writes: [{ resource: ${widgets} }] };\n`);
    const built = await runCli(cli, ['rbac', entry]);
    expect(built.code).toBe(2);
    expect(built.stderr).toMatch(new RegExp(`\\. Give the built JavaScript: rxfleet rbac ${join(project, 'dist', 'main.js').replace(/[.]/g, '\\.')}\n$`));
    const ok = await runCli(cli, ['rbac', join(project, 'dist', 'main.js')]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('kind: ClusterRole');
  });
});

interface Rbac {
  readonly items: readonly (RoleDocument | (KubeObject & { readonly kind: string }))[];
}

async function rbacForHello(namespace: string): Promise<Rbac> {
  const r = await runCli(cli, ['rbac', 'dist-demo/examples/hello/main.js', '-o', 'json', '--service-account', `${namespace}/hello`, '--', namespace]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Rbac;
}

async function applyAll(admin: ClusterClient, rbac: Rbac): Promise<void> {
  const byKind: Readonly<Record<string, ResourceDescriptor>> = { Role: roles, RoleBinding: roleBindings, ClusterRole: clusterRoles, ClusterRoleBinding: clusterRoleBindings };
  for (const item of rbac.items) {
    const r = byKind[item.kind];
    if (r === undefined) throw new Error(`unexpected kind ${item.kind}`);
    must(await admin.apply(r, item as KubeObject, { fieldManager: 'rxfleet-test' }));
  }
}

async function reply(admin: ClusterClient, namespace: string): Promise<string | undefined> {
  const got = await admin.get(configMaps, 'greeting', { namespace });
  return E.isRight(got) ? (got.right).data?.reply : undefined;
}

describe('rxfleet rbac for examples/hello on a real kube-apiserver', () => {
  const server = sharedKubeApiserver();
  const adminYaml = server.kubeconfigYaml('admin');
  const admin = clientFrom('admin', adminYaml);

  it('is all hello needs: it converges under its ServiceAccount token', async () => {
    const namespace = await server.createNamespace('rbac');
    const rbac = await rbacForHello(namespace);
    expect(rbac.items.map((i) => [i.kind, i.metadata.name])).toEqual([
      ['Role', 'hello'],
      ['RoleBinding', 'hello'],
    ]);
    await applyAll(admin, rbac);
    const token = await serviceAccountKubeconfig(admin, adminYaml, namespace, 'hello');
    const run = startExample('hello', [namespace, kubeconfigFile(token)]);
    try {
      must(await admin.apply(configMaps, { metadata: { name: 'greeting', namespace } }, { fieldManager: 'test' }));
      await eventually(`the reply (output so far:\n${run.output()})`, async () => ((await reply(admin, namespace)) === 'hello from cluster-0' ? true : undefined));
    } finally {
      expect(await terminate(run)).toBe(0);
    }
    expect(run.output()).not.toMatch(/forbidden/i);
  });

  it('too narrow, gives a 403 that names the verb and the resource', async () => {
    const namespace = await server.createNamespace('rbac-narrow');
    const rbac = await rbacForHello(namespace);
    // Take `patch` (what server-side apply needs) away from the ConfigMaps rule.
    const narrowed: Rbac = {
      items: rbac.items.map((i) =>
        i.kind === 'Role' ? { ...i, rules: (i as RoleDocument).rules.map((r) => (r.resources[0] === 'configmaps' ? { ...r, verbs: r.verbs.filter((v) => v !== 'patch') } : r)) } : i,
      ),
    };
    await applyAll(admin, narrowed);
    const token = await serviceAccountKubeconfig(admin, adminYaml, namespace, 'hello');
    const run = startExample('hello', [namespace, kubeconfigFile(token)]);
    try {
      must(await admin.apply(configMaps, { metadata: { name: 'greeting', namespace } }, { fieldManager: 'test' }));
      await eventually(`a 403 in the output (so far:\n${run.output()})`, () => (run.output().includes('Forbidden') ? true : undefined));
    } finally {
      await terminate(run);
    }
    const line = run.output().split('\n').find((l) => l.includes('Forbidden')) ?? '';
    expect(line).toMatch(/PATCH \/api\/v1\/namespaces\/[a-z0-9-]+\/configmaps\/greeting/);
    expect(line).toMatch(/cannot patch resource \\"configmaps\\"/);
    expect(await reply(admin, namespace)).toBeUndefined();
  });
});
