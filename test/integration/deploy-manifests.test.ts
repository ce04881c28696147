// The deployment manifests are valid Kubernetes objects: every file of deploy/ha (examples/ha) and
// of the `rxfleet init` scaffold's deploy/ is server-side applied to a real kube-apiserver with
// dryRun=All and fieldValidation=Strict (an unknown or misplaced field is an error). No kubelet
// runs here, so no Pod starts: this proves the schema, the references between the objects are
// checked below by reading them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { defaultScaffoldValues, scaffold } from '../../packages/cli/src/scaffold.js';
import { clusterName, isLeft } from '../../src/index.js';
import { repoRoot } from '../support/binaries.js';
import { sharedKubeApiserver } from '../support/context.js';

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string };
  readonly [field: string]: unknown;
}

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding']);
const PLURALS: Readonly<Record<string, string>> = {
  Namespace: 'namespaces', ServiceAccount: 'serviceaccounts', ConfigMap: 'configmaps', Service: 'services',
  Deployment: 'deployments', Role: 'roles', RoleBinding: 'rolebindings', ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings',
  PodDisruptionBudget: 'poddisruptionbudgets',
};

function pathOf(m: Manifest): string {
  const plural = PLURALS[m.kind];
  if (plural === undefined) throw new Error(`no resource path known for kind ${m.kind}`);
  const base = m.apiVersion === 'v1' ? '/api/v1' : `/apis/${m.apiVersion}`;
  const ns = CLUSTER_SCOPED.has(m.kind) ? '' : `/namespaces/${m.metadata.namespace ?? 'default'}`;
  return `${base}${ns}/${plural}/${m.metadata.name}`;
}

/** The files a kustomization lists, parsed, with the namespace moved to `ns` as `kustomize edit set namespace` would. */
function kustomizeBase(dir: string, ns: string): Manifest[] {
  const k = load(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  const docs = k.resources.flatMap((f) => loadAll(readFileSync(join(dir, f), 'utf8')) as Manifest[]);
  return docs.map((m) => {
    if (m.kind === 'Namespace') return { ...m, metadata: { ...m.metadata, name: ns } };
    const subjects = (m.subjects as { kind: string; namespace?: string }[] | undefined)?.map((s) => (s.kind === 'ServiceAccount' ? { ...s, namespace: ns } : s));
    return {
      ...m,
      ...(subjects === undefined ? {} : { subjects }),
      metadata: CLUSTER_SCOPED.has(m.kind) ? m.metadata : { ...m.metadata, namespace: ns },
    };
  });
}

let admin: ClusterClient;
const tmp = mkdtempSync(join(tmpdir(), 'rxfleet-deploy-'));

beforeAll(() => {
  const made = createClusterClient(clusterName('kube-apiserver'), { file: sharedKubeApiserver().kubeconfigPath('admin') });
  if (isLeft(made)) throw new Error(made.left.message);
  admin = made.right;
});
afterAll(() => {
  admin.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function dryRunApply(m: Manifest): Promise<string> {
  const res = await admin.raw({
    method: 'PATCH',
    path: `${pathOf(m)}?fieldManager=rxfleet-deploy-test&dryRun=All&fieldValidation=Strict&force=true`,
    body: JSON.stringify(m),
    contentType: 'application/apply-patch+yaml',
  });
  return isLeft(res) ? `${m.kind}/${m.metadata.name}: ${res.left.message}` : 'ok';
}

function byKind(docs: readonly Manifest[], kind: string): Manifest[] {
  return docs.filter((d) => d.kind === kind);
}

/** The one object of `kind` (the test then reads only the fields it names). */
function one(docs: readonly Manifest[], kind: string): unknown {
  const found = byKind(docs, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0];
}

describe('deploy/ha, the kustomize base of examples/ha', () => {
  const dir = join(repoRoot, 'deploy', 'ha');

  it('lists every manifest of its folder in kustomization.yaml', () => {
    const k = load(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...k.resources].sort()).toEqual(files.sort());
  });

  it('is accepted by kube-apiserver (server-side apply, dry run, strict field validation)', async () => {
    const ns = await sharedKubeApiserver().createNamespace('deploy-ha');
    const docs = kustomizeBase(dir, ns);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', 'Namespace', 'Role', 'RoleBinding', 'Service', 'ServiceAccount'],
    );
    const results = [];
    for (const d of docs) results.push(await dryRunApply(d));
    expect(results).toEqual(docs.map(() => 'ok'));
  });

  it('would catch a wrong field: the same Deployment with a misspelled probe field is refused', async () => {
    const ns = await sharedKubeApiserver().createNamespace('deploy-bad');
    const deploy = one(kustomizeBase(dir, ns), 'Deployment') as Manifest & { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    const [c] = deploy.spec.template.spec.containers;
    const bad = { ...deploy, spec: { ...deploy.spec, template: { ...deploy.spec.template, spec: { ...deploy.spec.template.spec, containers: [{ ...c, readinesProbe: c?.readinessProbe }] } } } };
    expect(await dryRunApply(bad)).toMatch(/readinesProbe/);
  });

  it('runs two replicas with leader election, probes on /healthz and /readyz, as its ServiceAccount, non-root', () => {
    const docs = kustomizeBase(dir, 'x');
    const deploy = one(docs, 'Deployment') as { spec: { replicas: number; template: { spec: Record<string, unknown> } } };
    const pod = deploy.spec.template.spec as {
      serviceAccountName: string;
      securityContext: { runAsNonRoot: boolean };
      containers: { args: string[]; livenessProbe: { httpGet: { path: string; port: string } }; readinessProbe: { httpGet: { path: string } }; ports: { name: string }[] }[];
    };
    const [c] = pod.containers;
    expect(deploy.spec.replicas).toBe(2);
    expect(c?.args).toContain('--replicas=leader');
    expect([c?.livenessProbe.httpGet.path, c?.readinessProbe.httpGet.path]).toEqual(['/healthz', '/readyz']);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(byKind(docs, 'ServiceAccount').map((s) => s.metadata.name)).toEqual([pod.serviceAccountName]);
    const svc = one(docs, 'Service') as { spec: { ports: { targetPort: string }[] } };
    expect(c?.ports.map((p) => p.name)).toContain(svc.spec.ports[0]?.targetPort);
    const role = one(docs, 'Role') as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    expect(role.rules).toContainEqual(expect.objectContaining({ apiGroups: ['coordination.k8s.io'], resources: ['leases'] }));
  });
});

describe('the deploy/ of a project made by `rxfleet init`', () => {
  it('is accepted by kube-apiserver (server-side apply, dry run, strict field validation)', async () => {
    const project = join(tmp, 'greeter');
    scaffold(project, defaultScaffoldValues('greeter'));
    const ns = await sharedKubeApiserver().createNamespace('deploy-init');
    const docs = kustomizeBase(join(project, 'deploy'), ns);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', 'Namespace', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'Service', 'ServiceAccount'],
    );
    const results = [];
    for (const d of docs) results.push(await dryRunApply(d));
    expect(results).toEqual(docs.map(() => 'ok'));
  });

  it('runs two replicas with leader election: the Lease in the Pod namespace (downward API), granted by a Role, one disruption at a time', () => {
    const project = join(tmp, 'elected');
    scaffold(project, defaultScaffoldValues('elected'));
    const docs = kustomizeBase(join(project, 'deploy'), 'x');
    const deploy = one(docs, 'Deployment') as { spec: { replicas: number; template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } } };
    const pod = deploy.spec.template.spec as { containers: { env: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[] }[] };
    expect(deploy.spec.replicas).toBe(2);
    const env = pod.containers[0]?.env ?? [];
    expect(env).toContainEqual({ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } });
    expect(env).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    // src/main.ts reads the Lease namespace from there.
    expect(readFileSync(join(project, 'src', 'main.ts'), 'utf8')).toMatch(/type: 'leader-election'[\s\S]*namespace: process\.env\.POD_NAMESPACE/);
    const role = one(docs, 'Role') as { metadata: { namespace: string }; rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    expect(role.metadata.namespace).toBe('x');
    expect(role.rules).toContainEqual(expect.objectContaining({ apiGroups: ['coordination.k8s.io'], resources: ['leases'] }));
    const pdb = one(docs, 'PodDisruptionBudget') as { spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } } };
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(deploy.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
  });
});
