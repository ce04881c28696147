// The peer benchmark's fleet: W kcp workspaces with N input ConfigMaps each, one kubeconfig file per
// workspace (context named after the workspace, as both file providers name clusters by context),
// and the input/output shapes both controllers agree on.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKcpWorkspace, kcpClusterKubeConfig } from '../../test/support/kcp.js';
import { pool } from '../../test/support/pool.js';
import { eventually } from '../../test/support/wait.js';
import type { Kube } from './kube.js';
import { must } from './kube.js';

/** The label that marks inputs; outputs do not carry it. */
export const INPUT_LABEL = 'bench.rxfleet.io/input';
/** The annotation both controllers put on `x-out`: the input's name. */
export const SOURCE_ANNOTATION = 'bench.rxfleet.io/source';
/** ~1 KB of payload per ConfigMap. */
const PAYLOAD = 'x'.repeat(1000);

/** One workspace of the fleet. */
export interface BenchWorkspace {
  readonly name: string;
  /** `/clusters/root:<name>/api/v1/namespaces/default/configmaps` */
  readonly cmPath: string;
}

/** The fleet set up in kcp. */
export interface BenchFleet {
  readonly workspaces: readonly BenchWorkspace[];
  readonly objectsPerWorkspace: number;
  /** Directory of `<workspace>.kubeconfig` files. */
  readonly kubeconfigDir: string;
  /** The root workspace's kubeconfig (MCR's manager wants a local cluster). */
  readonly rootKubeconfig: string;
}

/**
 * An input ConfigMap's body at generation `gen`.
 *
 * @example
 * await kube.request('PUT', `${ws.cmPath}/${inputName(3)}`, inputBody(3, 2));
 */
export function inputBody(i: number, gen: number): { apiVersion: string; kind: string; metadata: { name: string; namespace: string; labels: Record<string, string> }; data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: inputName(i), namespace: 'default', labels: { [INPUT_LABEL]: 'true' } }, data: { gen: String(gen), index: String(i), payload: PAYLOAD } };
}

/**
 * The name of input `i`.
 *
 * @example
 * inputName(7) // 'in-7'
 */
export function inputName(i: number): string {
  return `in-${i}`;
}

/**
 * Creates `workspaces` workspaces (`<prefix>-<i>`) with `objects` inputs each, and writes their
 * kubeconfigs to `dir`.
 *
 * @example
 * const fleet = await setupFleet(kube, kcp.adminKubeconfigPath, '/tmp/peer', { workspaces: 5, objects: 100 });
 */
export async function setupFleet(kube: Kube, adminKubeconfigPath: string, dir: string, opts: { readonly workspaces: number; readonly objects: number; readonly prefix: string }): Promise<BenchFleet> {
  const kubeconfigDir = join(dir, 'kubeconfigs');
  mkdirSync(kubeconfigDir, { recursive: true });
  const indexes = Array.from({ length: opts.workspaces }, (_, i) => i);
  const workspaces: BenchWorkspace[] = [];
  await pool(indexes, 4, async (i) => {
    const ws = await createKcpWorkspace(adminKubeconfigPath, `${opts.prefix}-${i}`, { timeoutMs: 300_000 });
    const cmPath = `/clusters/${ws.path}/api/v1/namespaces/default/configmaps`;
    await pool(
      Array.from({ length: opts.objects }, (_, j) => j),
      8,
      async (j) => {
        await createInput(kube, cmPath, j, `create ${inputName(j)} in ${ws.name}`);
      },
    );
    writeFileSync(join(kubeconfigDir, `${ws.name}.kubeconfig`), contextNamed(ws.kubeconfigYaml(), ws.name));
    workspaces.push({ name: ws.name, cmPath });
  });
  workspaces.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  const rootKubeconfig = join(dir, 'root.kubeconfig');
  writeFileSync(rootKubeconfig, contextNamed(kcpClusterKubeConfig(adminKubeconfigPath, 'root').exportConfig(), 'root'));
  return { workspaces, objectsPerWorkspace: opts.objects, kubeconfigDir, rootKubeconfig };
}

/**
 * Creates one input. On a loaded machine kcp's etcd may answer 500 "request timed out" (or 429/503)
 * while the create still lands: asked again (bounded), and a 409 after such an answer means it did.
 */
async function createInput(kube: Kube, cmPath: string, j: number, what: string): Promise<void> {
  let retried = false;
  let last = '';
  await eventually(
    what,
    async () => {
      const res = await kube.request('POST', cmPath, inputBody(j, 0));
      if (res.status === 201 || (retried && res.status === 409)) return true;
      if (![429, 500, 503, 504].includes(res.status)) must(res, what, 201);
      retried = true;
      last = `HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      return false;
    },
    { timeoutMs: 120_000, intervalMs: 500, context: () => `last answer: ${last}` },
  );
}

/** Renames the one context of an exported kubeconfig (client-node calls it `loaded-context`). */
function contextNamed(json: string, name: string): string {
  const doc = JSON.parse(json) as { contexts: { name: string }[]; 'current-context'?: string };
  const [ctx] = doc.contexts;
  if (doc.contexts.length !== 1 || ctx === undefined) throw new Error(`kubeconfig for ${name}: expected one context, found ${doc.contexts.length}`);
  ctx.name = name;
  doc['current-context'] = name;
  return JSON.stringify(doc, null, 2);
}
