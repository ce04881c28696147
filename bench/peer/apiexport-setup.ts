// The peer benchmark's third column: the same workspaces reached through a kcp APIExport that
// claims ConfigMaps (no resources of its own), bound in every workspace with the claim accepted,
// so rxfleet's APIExport provider serves them from its virtual workspace.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKcpWorkspace, kcpClusterKubeConfig } from '../../test/support/kcp.js';
import { pool } from '../../test/support/pool.js';
import { eventually } from '../../test/support/wait.js';
import type { BenchFleet } from './fleet-setup.js';
import type { Kube } from './kube.js';
import { must } from './kube.js';

/** What the APIExport provider needs: the provider workspace's kubeconfig and the export's name. */
export interface ApiExportSetup {
  readonly providerKubeconfig: string;
  readonly exportName: string;
}

const CLAIM = { group: '', resource: 'configmaps', verbs: ['*'] };

/**
 * Creates a provider workspace with an APIExport claiming ConfigMaps and binds it in every
 * workspace of `fleet`, claim accepted for all objects.
 *
 * @example
 * const ax = await setupConfigMapExport(kube, kcp.adminKubeconfigPath, dir, fleet, 'peer-1234');
 */
export async function setupConfigMapExport(kube: Kube, adminKubeconfigPath: string, dir: string, fleet: BenchFleet, prefix: string): Promise<ApiExportSetup> {
  const prov = await createKcpWorkspace(adminKubeconfigPath, `${prefix}-provider`, { timeoutMs: 300_000 });
  const exportName = 'configmaps.bench.rxfleet.io';
  must(
    await kube.request('POST', `/clusters/${prov.path}/apis/apis.kcp.io/v1alpha2/apiexports`, {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIExport',
      metadata: { name: exportName },
      spec: { permissionClaims: [CLAIM] },
    }),
    `create APIExport ${exportName} in ${prov.path}`,
    201,
  );
  await pool(fleet.workspaces, 4, async (ws) => {
    const base = ws.cmPath.replace(/\/api\/v1\/.*$/, '');
    const binding = {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIBinding',
      metadata: { name: 'bench-peer' },
      spec: { reference: { export: { path: prov.path, name: exportName } }, permissionClaims: [{ ...CLAIM, selector: { matchAll: true }, state: 'Accepted' }] },
    };
    must(await kube.request('POST', `${base}/apis/apis.kcp.io/v1alpha2/apibindings`, binding), `bind ${exportName} in ${ws.name}`, 201);
    // Bounded: a binding that never binds is a broken set-up, said with its last status.
    let last: unknown;
    await eventually(
      `the APIBinding in ${ws.name} to be Bound`,
      async () => {
        last = (await kube.request('GET', `${base}/apis/apis.kcp.io/v1alpha2/apibindings/bench-peer`)).body;
        return (last as { status?: { phase?: string } }).status?.phase === 'Bound';
      },
      { timeoutMs: 120_000, intervalMs: 250, context: () => `last status: ${JSON.stringify(last).slice(0, 300)}` },
    );
  });
  const providerKubeconfig = join(dir, 'apiexport-provider.kubeconfig');
  writeFileSync(providerKubeconfig, kcpClusterKubeConfig(adminKubeconfigPath, prov.path).exportConfig());
  return { providerKubeconfig, exportName };
}
