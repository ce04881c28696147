// The kind provider with a stand-in `kind` executable (no container engine here): a shell script
// put first on PATH answers `kind get clusters` and `kind get kubeconfig --name X` from files, and
// its kubeconfigs point at the real kube-apiserver and a kcp workspace.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kindProvider } from '../../src/providers/kind/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterFrom } from './streams-support.js';
import { createConfigMap, engagedAfter, isDisengaged, isEngaged, recorder, seeConfigMap } from './providers-support.js';
import { randomName } from './targets.js';

const originalPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = originalPath;
});

/** A stand-in `kind` in a fresh directory; `clusters` and `<name>.kubeconfig` files drive it. */
function fakeKind(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-kind-'));
  const script = `#!/bin/sh
dir="${dir}"
case "$1 $2" in
  "get clusters") if [ -s "$dir/clusters" ]; then cat "$dir/clusters"; else echo "No kind clusters found." >&2; fi ;;
  "get kubeconfig") [ "$3" = "--name" ] || exit 2; f="$dir/$4.kubeconfig"; if [ -f "$f" ]; then cat "$f"; else echo "ERROR: could not locate any control plane nodes for cluster named '$4'" >&2; exit 1; fi ;;
  *) echo "unknown command: $*" >&2; exit 2 ;;
esac
`;
  writeFileSync(join(dir, 'kind'), script);
  chmodSync(join(dir, 'kind'), 0o755);
  writeFileSync(join(dir, 'clusters'), '');
  return dir;
}

describe('kindProvider with a stand-in kind executable first on PATH (no container engine here)', () => {
  it('should poll kind, keep clusters with the prefix, re-engage a recreated cluster, skip one without kubeconfig and disengage a deleted one', async () => {
    const dir = fakeKind();
    process.env.PATH = `${dir}${delimiter}${originalPath ?? ''}`;
    const w = await sharedKcp().createWorkspace();
    const kas = sharedKubeApiserver().kubeconfigYaml('admin');
    writeFileSync(join(dir, 'fleet-one.kubeconfig'), kas);
    writeFileSync(join(dir, 'clusters'), 'fleet-one\nignored\n');

    const rec = recorder();
    rec.start(kindProvider({ prefix: 'fleet-', intervalMs: 300 }));
    const one = await rec.waitEvent('fleet-one engaged', isEngaged('fleet-one'), 20_000);
    if (one.type !== 'engaged') throw new Error('unreachable');
    expect(one.cluster.client.server).toBe(clusterFrom('k', kas).client.server);

    // A new cluster whose kubeconfig kind cannot give: skipped with kind's stderr.
    writeFileSync(join(dir, 'clusters'), 'fleet-one\nfleet-two\nignored\n');
    const skipped = await rec.waitReport('fleet-two skipped', (r) => r.type === 'skipped' && r.candidate === 'fleet-two', 20_000);
    expect(skipped.type === 'skipped' && skipped.reason).toContain("could not locate any control plane nodes for cluster named 'fleet-two'");
    writeFileSync(join(dir, 'fleet-two.kubeconfig'), w.kubeconfigYaml());
    await rec.waitEvent('fleet-two engaged', isEngaged('fleet-two'), 20_000);

    // fleet-one recreated (another server): re-engaged; a watch through it sees the new server.
    const count = rec.events.length;
    writeFileSync(join(dir, 'fleet-one.kubeconfig'), w.kubeconfigYaml());
    const one2 = await engagedAfter(rec, 'fleet-one', count);
    if (one2.type !== 'engaged') throw new Error('unreachable');
    const cm = randomName('kind');
    await createConfigMap(clusterFrom('w', w.kubeconfigYaml()).client, 'default', cm);
    expect(await seeConfigMap(one2.cluster, 'default', cm)).toBe(cm);

    // kind deleted fleet-two.
    writeFileSync(join(dir, 'clusters'), 'fleet-one\n');
    const gone = await rec.waitEvent('fleet-two disengaged', isDisengaged('fleet-two'), 20_000);
    expect(gone.type === 'disengaged' && gone.reason).toBe('no longer listed by kind');
    expect(rec.events.some(isEngaged('ignored'))).toBe(false);
    rec.stop();
    rmSync(dir, { recursive: true, force: true });
  });
});
