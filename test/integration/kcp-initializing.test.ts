// The initializing-workspaces provider against the shared kcp, through the common path (a fleet's
// engagements): new workspaces of a WorkspaceType with an initializer are engaged while they
// initialize, set up through the virtual workspace, released with finishInitialization, reach
// Ready, and leave the fleet.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import type { ProviderReport } from '../../src/streams/index.js';
import { createFleet } from '../../src/streams/index.js';
import { sharedKcp } from '../support/context.js';
import { requestJson, stringField } from '../support/http.js';
import { createKcpWorkspace, kcpClusterKubeConfig } from '../support/kcp.js';
import { createInitializerType, createTypedWorkspace, welcomeEach, workspaceReady } from '../support/kcp-initializing.js';
import { eventually } from '../support/wait.js';

describe('initializingWorkspaceProvider on a real kcp', () => {
  it('initialises new workspaces of a custom WorkspaceType, which then reach Ready', async () => {
    const admin = sharedKcp().adminKubeconfigPath;
    const home = await createKcpWorkspace(admin, `types-${randomBytes(3).toString('hex')}`);
    const homeKc = () => kcpClusterKubeConfig(admin, home.path);
    const typeName = 'tenant';
    const created = await createInitializerType(homeKc(), typeName);
    expect(created.status).toBe(201);

    const reports: ProviderReport[] = [];
    const provider = initializingWorkspaceProvider(
      { management: () => ({ yaml: homeKc().exportConfig() }), pathAware: true, managementWatch: { backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 } }, workspaceType: typeName },
    );
    const fleet = createFleet(provider);
    const reported = fleet.reports.subscribe((r) => reports.push(r));
    const { engaged: engagedClusters, finished, errors, subscription } = welcomeEach(fleet);
    const subs = [reported, subscription];
    try {
      const names = ['init-a', 'init-b'];
      for (const name of names) {
        const ws = await createTypedWorkspace(homeKc(), name, { name: typeName, path: home.path });
        expect(ws.status).toBe(201);
      }
      for (const name of names) {
        await workspaceReady(homeKc, name, 90_000);
        // The initializer's setup is there, written through the initializing virtual workspace.
        const cm = await requestJson(kcpClusterKubeConfig(admin, `${home.path}:${name}`), 'GET', '/api/v1/namespaces/welcome/configmaps/welcome');
        expect(stringField(cm.body, 'data', 'workspace')).toBe(`${home.path}:${name}`);
      }
      expect(errors).toEqual([]);
      expect(finished.sort()).toEqual(names.map((n) => `${home.path}:${n}`));
      // Each said who it is.
      for (const c of engagedClusters) {
        expect(c.identity).toMatchObject({ provider: 'kcp-initializing', from: `workspace ${c.name} initializing for WorkspaceType ${typeName}` });
        expect(c.identity?.id).toBe(c.labels?.['kcp.io/cluster']);
      }
      // Each was disengaged once it stopped matching (kcp's synthetic DELETED).
      await eventually('both disengaged', () => Promise.resolve(reports.filter((r) => r.type === 'disengaged').length === 2 ? true : undefined));
      expect(fleet.clusters()).toEqual([]);
      expect(reports.filter((r) => r.type === 'error' || r.type === 'skipped')).toEqual([]);
    } finally {
      for (const s of subs) s.unsubscribe();
    }
  });
});
