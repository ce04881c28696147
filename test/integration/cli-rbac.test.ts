// The built `rxfleet` bin: its Node version check (under the system Node 20), its help, and
// `rxfleet rbac` for examples/hello applied to a real kube-apiserver: the example then runs under
// that ServiceAccount's token (not admin) and converges; with one verb taken away it reports a
// 403 naming the verb and the resource.
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
import { clientFrom, right, until } from './runtime-support.js';

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
    right(await admin.apply(r, item as KubeObject, { fieldManager: 'rxfleet-test' }));
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
      right(await admin.apply(configMaps, { metadata: { name: 'greeting', namespace } }, { fieldManager: 'test' }));
      await until(`the reply (output so far:\n${run.output()})`, async () => ((await reply(admin, namespace)) === 'hello from cluster-0' ? true : undefined));
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
      right(await admin.apply(configMaps, { metadata: { name: 'greeting', namespace } }, { fieldManager: 'test' }));
      await until(`a 403 in the output (so far:\n${run.output()})`, () => (run.output().includes('Forbidden') ? true : undefined));
    } finally {
      await terminate(run);
    }
    const line = run.output().split('\n').find((l) => l.includes('Forbidden')) ?? '';
    expect(line).toMatch(/PATCH \/api\/v1\/namespaces\/[a-z0-9-]+\/configmaps\/greeting/);
    expect(line).toMatch(/cannot patch resource \\"configmaps\\"/);
    expect(await reply(admin, namespace)).toBeUndefined();
  });
});
