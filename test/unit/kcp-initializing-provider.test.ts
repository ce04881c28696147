// The initializing-workspaces provider in process, every watch answered by a fake kcp (no server):
// an initializing workspace is named by the path on its LogicalCluster, with its identity and the
// initializer label and no shared cache, and leaves the fleet (its client closed) once kcp no longer
// waits for this initializer.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Subscription } from 'rxjs';
import { clusterName } from '../../src/index.js';
import type { LogicalCluster } from '../../src/providers/kcp/index.js';
import { initializerLabel, initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import { createFleet } from '../../src/streams/index.js';
import { closed, FakeKcp, kubeconfig, SERVER } from './fake-kcp.js';

const subs: Subscription[] = [];
afterEach(() => {
  for (const s of subs.splice(0)) s.unsubscribe();
});

describe('initializingWorkspaces on a fake kcp', () => {
  it('names initializing workspaces by the path on their LogicalCluster, with identity and the initializer label, and no shared cache', async () => {
    const INIT = `${SERVER}/services/initializingworkspaces/root:org:tenant`;
    const lc = (logical: string, path: string): LogicalCluster => ({
      metadata: { name: 'cluster', resourceVersion: '1', annotations: { 'kcp.io/cluster': logical, 'kcp.io/path': path } },
      status: { initializers: ['root:org:tenant'] },
    });
    const kcp = new FakeKcp()
      .has('root:prov', 'workspacetypes', [{ metadata: { name: 'tenant', resourceVersion: '1' }, status: { virtualWorkspaces: [{ url: INIT }, { url: `${SERVER}/services/other` }] } }])
      .has(`${INIT}/clusters/*`, 'logicalclusters', [lc('x1', 'root:org:x')]);
    const fleet = createFleet(initializingWorkspaceProvider({ management: kubeconfig, pathAware: true, managementWatch: kcp.watchConfig(), workspaceType: 'tenant' }));
    subs.push(fleet.engagements.subscribe());
    const x = await vi.waitFor(() => {
      const c = fleet.get(clusterName('root:org:x'));
      if (c === undefined) throw new Error('not yet');
      return c;
    });
    expect(x.identity).toEqual({ provider: 'kcp-initializing', from: 'workspace root:org:x initializing for WorkspaceType tenant', id: 'x1' });
    expect(x.labels).toEqual({ [initializerLabel]: 'root:org:tenant', 'kcp.io/cluster': 'x1', 'kcp.io/path': 'root:org:x' });
    expect(x.cache).toBeUndefined();
    expect(x.unservedResourceHint).toBe('bind an APIExport that exports it in workspace root:org:x, or create its CRD there');
    // kcp's synthetic DELETED once it no longer waits for this initializer.
    kcp.send(`${INIT}/clusters/*`, 'logicalclusters', 'DELETED', lc('x1', 'root:org:x'));
    await vi.waitFor(() => {
      expect(fleet.clusters()).toEqual([]);
    });
    expect(await closed(x.client)).toBe(true);
  });
});
