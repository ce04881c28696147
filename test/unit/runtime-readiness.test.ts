// Readiness and the start of a run judged by the provider's first discovery pass (issue 15): a file
// provider on a missing path ends the run with reason `config` (exit code 2) and a message naming
// the provider, the path and the cause; `allowEmpty` runs on and /readyz says why; `minClusters`
// gates readiness on what the provider discovered, not on what this replica runs. No API server:
// watch sources are injected.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import type { Observable } from 'rxjs';
import { concat, filter, firstValueFrom, NEVER, of, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject, ResourceDescriptor, RunHandle, RunOptions, RunResult } from '../../src/index.js';
import { ConfigError, configMaps, controller, done, run } from '../../src/index.js';
import { kubeconfigFileProvider } from '../../src/providers/file/index.js';
import type { HealthReport } from '../../src/runtime/index.js';
import type { FleetEvent, Provider, ListerWatcher } from '../../src/streams/index.js';
import { engaged, reported, staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { capturedLogger } from './log-capture.js';

const quiet = pino({ level: 'silent' });

/** Every cluster lists empty at once, then its watch stays open. */
const sourceFor = <T extends KubeObject>(_c: { name: string }, _r: ResourceDescriptor<T>): ListerWatcher<T> => ({
  list: () => of(E.right({ metadata: { resourceVersion: '1' }, items: [] as T[] })),
  watch: () => NEVER,
});

function start(provider: Provider, options: RunOptions = {}): Promise<RunHandle> {
  const c = controller<ConfigMap>({ name: 'ready', provider, resource: configMaps, reconcile: () => done(), watchOptions: { streamingList: false, listerWatcherFor: sourceFor } });
  return run(c, { logger: quiet, signals: false, http: { port: 0 }, shutdownDeadlineMs: 2_000, ...options });
}

const untilReport = (h: RunHandle, p: (r: HealthReport) => boolean): Promise<HealthReport> => firstValueFrom(h.health.changes.pipe(filter(p)));
/** `p`'s value, or 'still running' if it has not settled after `ms` (a bounded wait for the end of a run). */
const within = <T>(p: Promise<T>, ms: number): Promise<T | 'still running'> => Promise.race([p, new Promise<'still running'>((r) => setTimeout(() => { r('still running'); }, ms))]);
const readyz = async (h: RunHandle): Promise<{ status: number; body: string }> => {
  const res = await fetch(`${h.url ?? ''}/readyz`);
  return { status: res.status, body: await res.text() };
};
const missing = join(tmpdir(), `rxfleet-missing-${process.pid}`, 'fleet.kubeconfig');
const fileOnMissingPath = (): Provider => kubeconfigFileProvider({ paths: [missing], watchDirectories: false, probe: false });

describe('a run whose provider finds no cluster', () => {
  it('ends with reason config (exit code 2), naming the provider, the path and the cause, when a file provider points at a missing path', async () => {
    const { log, lines } = capturedLogger();
    const handle = await start(fileOnMissingPath(), { logger: log });
    const result = await within(handle.done, 2_000);
    expect(result).toMatchObject({ reason: 'config', code: 2 });
    const message = (result as RunResult).message;
    expect(message).toContain('provider file found no cluster in its first discovery pass');
    expect(message).toContain(`kubeconfig path ${missing} does not exist`);
    expect(message).toContain('discovery.allowEmpty');
    expect(handle.health.report()).toMatchObject({ phase: 'stopped', ready: false });
    const stopped = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => typeof l.msg === 'string' && l.msg.startsWith('stopped:'));
    expect(stopped).toMatchObject({ level: 50, reason: 'config', code: 2 });
  });

  it('runs on with allowEmpty, and is ready with an empty fleet; /readyz shows the problem and the discovery', async () => {
    const handle = await start(fileOnMissingPath(), { discovery: { allowEmpty: true } });
    const report = await untilReport(handle, (r) => r.ready);
    expect(report.discovery).toEqual({ firstPassDone: true, clusters: 0, minClusters: 0 });
    const { status, body } = await readyz(handle);
    expect(status).toBe(200);
    expect(body).toContain('discovery: first pass done, 0 cluster(s) discovered, at least 0 needed');
    expect(body).toContain(`provider file: skipped ${missing}`);
    // The run ends, if it does, where the first pass is judged (before the ready report): it ran on.
    expect(handle.health.report()).toMatchObject({ phase: 'running', discovery: { firstPassDone: true } });
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('with allowEmpty and minClusters 1 runs on, not ready, and /readyz says why', async () => {
    const handle = await start(fileOnMissingPath(), { discovery: { allowEmpty: true, minClusters: 1 } });
    await untilReport(handle, (r) => r.discovery.firstPassDone);
    const { status, body } = await readyz(handle);
    expect(status).toBe(503);
    expect(body).toContain('why: the provider discovered 0 cluster(s), fewer than minClusters (1)');
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('refuses fleet options that can never work before anything starts', async () => {
    await expect(start(staticProvider([]), { discovery: { minClusters: -1 } })).rejects.toThrow(ConfigError);
    await expect(start(staticProvider([]), { discovery: { firstPassTimeoutMs: 0 } })).rejects.toThrow(/firstPassTimeoutMs/);
  });
});

describe('readiness gated by the first discovery pass and minClusters', () => {
  it('is not ready before the provider says its first pass is done, nor below minClusters', async () => {
    const events = new Subject<FleetEvent>();
    const handle = await start(events, { discovery: { minClusters: 2 } });
    events.next(engaged(fakeCluster('east')));
    // east is synced, but the provider has not finished looking.
    expect(handle.health.report()).toMatchObject({ ready: false, notReady: 'the provider has not finished its first discovery pass' });
    events.next(reported({ type: 'discovered', provider: 'test', clusters: 1, candidates: 2, at: 0 }));
    expect(handle.health.report()).toMatchObject({ ready: false, notReady: 'the provider discovered 1 cluster(s), fewer than minClusters (2)' });
    events.next(engaged(fakeCluster('west')));
    const report = await untilReport(handle, (r) => r.ready);
    expect(report.discovery).toEqual({ firstPassDone: true, clusters: 2, minClusters: 2 });
    expect(report.clusters.map((c) => [c.cluster, c.state])).toEqual([
      ['east', 'synced'],
      ['west', 'synced'],
    ]);
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('is not ready with the default minClusters (1) and an empty first pass without problems, and does not end the run', async () => {
    const handle = await start(staticProvider([]));
    expect(handle.health.report()).toMatchObject({ ready: false, notReady: 'the provider discovered 0 cluster(s), fewer than minClusters (1)' });
    // Judged already (the report names the count, not a pending pass), and the run goes on.
    expect(handle.health.report()).toMatchObject({ phase: 'running', discovery: { firstPassDone: true } });
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('takes the first pass of a provider that never reports it as done after firstPassTimeoutMs, with a warning', async () => {
    const { log, lines } = capturedLogger();
    const silent: Observable<FleetEvent> = concat(of(engaged(fakeCluster('east'))), NEVER);
    const handle = await start(silent, { logger: log, discovery: { firstPassTimeoutMs: 50 } });
    expect(handle.health.report().ready).toBe(false);
    await untilReport(handle, (r) => r.ready);
    expect(lines.some((l) => l.includes('did not finish its first discovery pass in time'))).toBe(true);
    expect((await handle.stop()).reason).toBe('clean');
  });
});
