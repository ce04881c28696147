// Two sync agents on one service cluster (one per kcp installation, api-syncagent#13's first option):
// each one's orphan sweep condemns only its own copies. Another agent's copy whose back-reference
// names a workspace this agent also has (logical cluster names such as `root` repeat across kcp
// installations) is not this agent's to judge: its source lives in the other installation.
import { afterEach, describe, expect, it } from 'vitest';
import { resourceId } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { SourceIdentity } from '../../src/sinks/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import { agentLabels } from '../../packages/sync-agent/src/labels.js';
import { isWrite, requestLabel } from '../../src/testing/index.js';
import type { Running } from './sync-fixture.js';
import { agentFleet, dbKcp, dbService, runSync } from './sync-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const source = (name: string, uid: string): SourceIdentity => ({ cluster: clusterName('root'), resource: resourceId(dbKcp), namespace: 'default', name, uid });
const copy = (agent: string, ref: string, src: SourceIdentity): KubeObject => {
  const [namespace = '', name = ''] = ref.split('/');
  return withBackReference({ apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name, namespace, labels: agentLabels(agent, 'databases') }, spec: { size: 1 } }, src);
};

describe('orphan sweep with two agents on one service cluster', () => {
  it("sweeps its own orphaned copy and leaves the other agent's copy of a same-named workspace alone", async () => {
    const fleet = agentFleet({ root: [] });
    fleet.put('service', dbService, copy('rxfleet-sync', 'root/gone', source('gone', 'u-gone')));
    fleet.put('service', dbService, copy('other-installation', 'us-root/theirs', source('theirs', 'u-theirs')));
    running = await runSync(fleet);
    // The sentinel: the workspaces' sweep (its list in root) starts only once the service side's is over.
    await running.until(() => fleet.requests.map(requestLabel).includes('list root'));
    expect(fleet.object('service', dbService, 'root/gone')).toBeUndefined();
    expect(fleet.object('service', dbService, 'us-root/theirs')).toBeDefined();
    expect(fleet.requests.filter(isWrite).map(requestLabel)).toEqual(['delete service/root/gone']);
  });
});
