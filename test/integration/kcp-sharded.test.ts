// The APIExport provider against kcp as it is deployed (rxfleet/envtest's startShardedKcp: a cache
// server, the root shard, shard-1 and a front-proxy, each its own process): workspaces on both
// shards engaged from the endpoint slice's two URLs; a SIGSTOPped shard degrades only its own
// workspaces; a shard URL that leaves the slice, replaced by one the controller cannot reach, is
// reported naming the URL and the shard; a shard added later is picked up with no restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePorts } from '../../src/envtest/ports.js';
import type { ProviderReport } from '../../src/streams/index.js';
import { requestJson } from '../support/http.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { ShardedExport, WidgetController } from '../support/kcp-sharded.js';
import { createWidget, patchShard, runWidgetController, startShardedExport, widgetReconciled } from '../support/kcp-sharded.js';
import { eventually } from '../support/wait.js';

describe('the APIExport provider across the shards of a sharded kcp', () => {
  let sx: ShardedExport;
  let ctl: WidgetController | undefined;
  const on = (shard: string): KcpWorkspace[] => sx.consumers.get(shard) ?? [];
  const all = (): KcpWorkspace[] => [...sx.consumers.values()].flat();
  const engagedNames = (): string[] => (ctl?.fleet.clusters() ?? []).map((c) => c.name as string).sort();
  const logicals = (wss: readonly KcpWorkspace[]): string[] => wss.map((w) => w.logicalCluster).sort();
  const controller = (): WidgetController => {
    if (ctl === undefined) throw new Error('the controller runs from the first test on');
    return ctl;
  };
  const failingSince = (from: number, management: string): ProviderReport[] =>
    controller().reports.slice(from).filter((r) => r.type === 'source' && r.state === 'failing' && r.management === management);

  beforeAll(async () => {
    sx = await startShardedExport(2);
  });
  afterAll(async () => {
    ctl?.stop();
    await sx.kcp.stop();
  });

  it('engages the workspaces of both shards from the slice\'s two URLs, each reconciled in its own logical cluster', async () => {
    const urls = await sx.sliceUrls();
    expect(urls).toEqual([sx.urlOf('root'), sx.urlOf('shard-1')].sort());
    ctl = runWidgetController(sx.fx);
    for (const ws of all()) await createWidget(sx.fx, ws, 'w1', 1);
    for (const ws of all()) await widgetReconciled(sx.fx, ws, 'w1', 1);
    await eventually('all four engaged', () => (engagedNames().join() === logicals(all()).join() ? true : undefined));
    // One presence watch per shard URL, through that shard's virtual workspace.
    expect([...controller().watched].filter((w) => w.endsWith(' apibindings')).sort()).toEqual(urls.map((u) => `${u}/clusters/* apibindings`));
    expect(controller().reports.filter((r) => r.type === 'error' || r.type === 'skipped')).toEqual([]);
  });

  it('a SIGSTOPped shard degrades only its own workspaces, which recover after SIGCONT', async () => {
    const c = controller();
    const mark = new Map([...c.health].map(([name, hs]) => [name, hs.length]));
    const since = (ws: KcpWorkspace): readonly { degraded?: boolean }[] => (c.health.get(ws.logicalCluster) ?? []).slice(mark.get(ws.logicalCluster) ?? 0);
    const reportsFrom = c.reports.length;
    const shard1 = sx.kcp.shard('shard-1');
    await shard1.pause();
    try {
      await eventually('every shard-1 workspace degraded', () => (on('shard-1').every((ws) => since(ws).some((h) => h.degraded === true)) ? true : undefined), { timeoutMs: 120_000 });
      await eventually('the presence watch on shard-1 reported failing', () => (failingSince(reportsFrom, `${sx.urlOf('shard-1')}/clusters/*`).length > 0 ? true : undefined), { timeoutMs: 120_000 });
      // The root shard's workspaces keep working meanwhile (the sentinel: reconciled after the pause took hold)...
      const [r0] = on('root');
      if (r0 === undefined) throw new Error('fixture');
      await createWidget(sx.fx, r0, 'during-pause', 3);
      await widgetReconciled(sx.fx, r0, 'during-pause', 3);
      // ...and were never called degraded, nor was the root shard's URL reported failing.
      for (const ws of on('root')) expect(since(ws).filter((h) => h.degraded === true)).toEqual([]);
      expect(failingSince(reportsFrom, `${sx.urlOf('root')}/clusters/*`)).toEqual([]);
      // Engaged workspaces stay engaged while their shard is unreachable.
      expect(engagedNames()).toEqual(logicals(all()));
    } finally {
      shard1.resume();
    }
    await eventually('shard-1 workspaces healthy again', () => (on('shard-1').every((ws) => { const hs = since(ws); const last = hs[hs.length - 1] as { degraded?: boolean; state?: string } | undefined; return last?.state === 'connected' && last.degraded !== true; }) ? true : undefined), { timeoutMs: 120_000 });
    const [s0] = on('shard-1');
    if (s0 === undefined) throw new Error('fixture');
    await createWidget(sx.fx, s0, 'after-pause', 4);
    await widgetReconciled(sx.fx, s0, 'after-pause', 4);
    await eventually('the presence watch on shard-1 recovered', () => (c.reports.slice(reportsFrom).some((r) => r.type === 'source' && r.state === 'recovered' && r.management === `${sx.urlOf('shard-1')}/clusters/*`) ? true : undefined), { timeoutMs: 60_000 });
  });

  it('a shard URL replaced in the slice by one the controller cannot reach: its workspaces leave, and the URL is reported naming it and the shard', async () => {
    const c = controller();
    const reportsFrom = c.reports.length;
    const free = await reservePorts(1);
    const shard1 = sx.kcp.shard('shard-1');
    const [s0] = on('shard-1');
    if (s0 === undefined) throw new Error('fixture');
    // kcp rewrites a shard's URL in the slice when a binding on that shard changes, reading the Shard
    // through the cache server: a touch handled before the Shard's change reached that cache leaves
    // the old URL for good. So touch again on every try until the slice lists what is wanted.
    let touches = 0;
    const touchUntilSliceLists = async (urls: readonly string[]): Promise<void> => {
      const want = [...urls].sort().join('\n');
      let seen: string[] = [];
      await eventually(
        `the endpoint slice to list ${urls.join(', ')}`,
        async () => {
          const res = await requestJson(sx.fx.workspaceKubeConfig(s0), 'PATCH', '/apis/apis.kcp.io/v1alpha2/apibindings/widgets-binding', { metadata: { labels: { touched: String(++touches) } } });
          if (res.status !== 200) throw new Error(`touching the binding: ${res.status} ${res.text.slice(0, 200)}`);
          seen = await sx.sliceUrls();
          return seen.join('\n') === want ? true : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 2_000, context: () => `it lists: ${seen.join(', ')} after ${touches} touches` },
      );
    };
    try {
      // Published, and nothing listens there: what a controller outside the shards' network sees.
      const unreachable = `https://127.0.0.1:${free.ports[0] ?? 0}`;
      await patchShard(sx.kcp, 'shard-1', { spec: { virtualWorkspaceURL: unreachable } });
      const badUrl = sx.urlOf('shard-1').replace(shard1.baseUrl, unreachable);
      await touchUntilSliceLists([sx.urlOf('root'), badUrl]);
      // shard-1's workspaces leave with its old URL; the root shard's stay.
      await eventually('only the root shard\'s workspaces engaged', () => (engagedNames().join() === logicals(on('root')).join() ? true : undefined), { timeoutMs: 60_000 });
      await eventually(
        'the unreachable URL reported, naming the URL and the shard',
        () => (c.reports.slice(reportsFrom).some((r) => r.type === 'source' && r.state === 'failing' && r.error === 'ClusterUnreachable' && r.reason.includes(badUrl) && r.reason.includes('shard shard-1')) ? true : undefined),
        { timeoutMs: 60_000, context: () => JSON.stringify(c.reports.slice(reportsFrom).filter((r) => r.type === 'source' || r.type === 'error')) },
      );
    } finally {
      await patchShard(sx.kcp, 'shard-1', { spec: { virtualWorkspaceURL: shard1.baseUrl } });
      await touchUntilSliceLists([sx.urlOf('root'), sx.urlOf('shard-1')]);
      free.release();
    }
    await eventually('all four engaged again', () => (engagedNames().join() === logicals(all()).join() ? true : undefined), { timeoutMs: 60_000 });
    await createWidget(sx.fx, s0, 'after-return', 5);
    await widgetReconciled(sx.fx, s0, 'after-return', 5);
  }, 300_000);

  it('a shard added later is picked up with no restart', async () => {
    await sx.kcp.addShard('shard-2');
    const ws = await sx.addConsumer('shard-2');
    await sx.sliceListsExactly([sx.urlOf('root'), sx.urlOf('shard-1'), sx.urlOf('shard-2')]);
    await createWidget(sx.fx, ws, 'w1', 7);
    await widgetReconciled(sx.fx, ws, 'w1', 7);
    expect(engagedNames()).toEqual(logicals(all()));
  });
});
