// The file provider against real servers: kubeconfig files in a temporary directory whose contexts
// point at kcp workspaces and the kube-apiserver; files are added, edited and removed while it runs.
// Clusters are named after their contexts; problems are reports in the provider's stream.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import { configMaps } from '../../src/index.js';
import type { KubeconfigFileSystem } from '../../src/providers/file/index.js';
import { kubeconfigFileProvider, nodeKubeconfigFileSystem } from '../../src/providers/file/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterFrom } from './streams-support.js';
import { createConfigMap, engagedAfter, isDisengaged, isEngaged, recorder, seeConfigMap, show } from './providers-support.js';
import { randomName } from './targets.js';
import { eventually } from '../support/wait.js';

/** One kubeconfig with a context per entry, each context taking cluster and user from a source kubeconfig. */
function merged(entries: Record<string, string>, extra = ''): string {
  const out = new KubeConfig();
  const clusters = [];
  const users = [];
  const contexts = [];
  for (const [ctx, yaml] of Object.entries(entries)) {
    const kc = new KubeConfig();
    kc.loadFromString(yaml);
    const c = kc.getCurrentCluster();
    const u = kc.getCurrentUser();
    if (c === null || u === null) throw new Error('bad source kubeconfig');
    clusters.push({ ...c, name: `${ctx}-cluster` });
    users.push({ ...u, name: `${ctx}-user` });
    contexts.push({ name: ctx, cluster: `${ctx}-cluster`, user: `${ctx}-user` });
  }
  out.loadFromOptions({ clusters, users, contexts, currentContext: extra === '' ? contexts[0]?.name : extra });
  return out.exportConfig();
}

/** Writes atomically (temp file + rename), as editors and kubectl do. */
function put(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

describe('kubeconfigFileProvider against kcp workspaces and kube-apiserver', () => {
  it('should engage contexts under their names, follow added, edited and removed files, and report a malformed one with its path', async () => {
    const [a, b] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
    const kas = sharedKubeApiserver().kubeconfigYaml('admin');
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-file-'));
    const fleetFile = join(dir, 'fleet.kubeconfig');
    put(fleetFile, merged({ ws: a.kubeconfigYaml(), kas }));
    put(join(dir, 'broken.kubeconfig'), 'clusters: [ {');
    writeFileSync(join(dir, 'README.md'), 'not a kubeconfig');

    const rec = recorder();
    // A long rescan interval: changes below are seen through fs.watch.
    rec.start(kubeconfigFileProvider({ paths: [dir], rescanIntervalMs: 60_000, debounceMs: 100 }));
    const ws = await rec.waitEvent('ws engaged', isEngaged('ws'));
    await rec.waitEvent('kas engaged', isEngaged('kas'));
    const skipped = await rec.waitReport('broken skipped', (r) => r.type === 'skipped' && r.candidate === join(dir, 'broken.kubeconfig'));
    expect(skipped.type === 'skipped' && skipped.reason).toContain('invalid kubeconfig');
    if (ws.type !== 'engaged') throw new Error('unreachable');
    expect(ws.cluster.identity).toEqual({ provider: 'file', from: 'context "ws" of kubeconfig fleet.kubeconfig' });
    const cmA = randomName('file-a');
    await createConfigMap(clusterFrom('a', a.kubeconfigYaml()).client, 'default', cmA);
    expect(await seeConfigMap(ws.cluster, 'default', cmA)).toBe(cmA);

    // A file added later.
    const later = join(dir, 'later.kubeconfig');
    put(later, merged({ other: b.kubeconfigYaml() }));
    await rec.waitEvent('later engaged', isEngaged('other'));

    // Only the current-context changes: no context's cluster or user changed, nothing happens. A
    // file written after it is the sentinel: a scan that lists it reads fleet.kubeconfig as changed
    // too, and would disengage ws or kas as it handles that; so once the sentinel is engaged, the
    // change was handled.
    const count = rec.events.length;
    put(fleetFile, merged({ ws: a.kubeconfigYaml(), kas }, 'kas'));
    put(join(dir, 'sentinel.kubeconfig'), merged({ sentinel: kas }));
    await rec.waitEvent('sentinel engaged', isEngaged('sentinel'));
    expect(rec.events.slice(count).map(show)).toEqual(['+sentinel']);

    // Context `ws` now points at workspace b: re-engaged with a client of b.
    put(fleetFile, merged({ ws: b.kubeconfigYaml(), kas }));
    const ws2 = await engagedAfter(rec, 'ws', count);
    expect(rec.events.slice(count).some(isDisengaged('ws'))).toBe(true);
    if (ws2.type !== 'engaged') throw new Error('unreachable');
    const cmB = randomName('file-b');
    await createConfigMap(clusterFrom('b', b.kubeconfigYaml()).client, 'default', cmB);
    expect(await seeConfigMap(ws2.cluster, 'default', cmB)).toBe(cmB);
    const old = await ws.cluster.client.list(configMaps, { namespace: 'default' });
    expect(E.isLeft(old) && old.left.type).toBe('NotEngaged');
    expect(rec.events.slice(count).some(isEngaged('kas'))).toBe(false);

    // The file is removed: its clusters are disengaged.
    rmSync(later);
    const gone = await rec.waitEvent('later disengaged', isDisengaged('other'));
    expect(gone.type === 'disengaged' && gone.reason).toBe('its file or context is gone');
    rec.stop();
  });

  it('should see changes by the periodic rescan alone when file watching is off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-rescan-'));
    const rec = recorder();
    const pattern = join(dir, '*.yaml');
    // An empty file beside the pattern (skipped, said once too): every scan stats it, which counts the scans.
    const stamp = join(dir, 'stamp.kubeconfig');
    writeFileSync(stamp, '');
    let stats = 0;
    const fileSystem: KubeconfigFileSystem = {
      ...nodeKubeconfigFileSystem,
      stat: (p) => {
        if (p === stamp) stats += 1;
        return nodeKubeconfigFileSystem.stat(p);
      },
    };
    rec.start(kubeconfigFileProvider({ paths: [pattern, stamp], watchDirectories: false, rescanIntervalMs: 300, fileSystem }));
    // Nothing matches yet: said once, naming the pattern, however many scans find nothing again.
    await rec.waitReport('pattern unmatched', (r) => r.type === 'skipped' && r.candidate === pattern && r.reason === `kubeconfig pattern ${pattern} matches no file`);
    // Scans run one at a time: once the third after the report stats the file, two whole scans found nothing again.
    const statsAtReport = stats;
    await eventually('two more scans', () => stats >= statsAtReport + 3, { timeoutMs: 10_000 });
    expect(rec.reports.flatMap((r) => (r.type === 'skipped' ? [r.candidate] : [])).sort()).toEqual([pattern, stamp].sort());
    const f = join(dir, 'one.yaml');
    put(f, merged({ kas: sharedKubeApiserver().kubeconfigYaml('admin') }));
    await rec.waitEvent('kas engaged', isEngaged('kas'), 10_000);
    rmSync(f);
    await rec.waitEvent('kas disengaged', isDisengaged('kas'), 10_000);
    rec.stop();
  });
});
