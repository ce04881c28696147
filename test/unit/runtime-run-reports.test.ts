// Provider reports and process metrics in a run, without a server (injected watch sources stand in
// for the API): a skipped candidate is logged, shown on /readyz and counted with no option; the
// process and Node runtime metrics are served by default, not when turned off, registered once.
import { pino } from 'pino';
import { concat, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { configMaps, controller, done, run } from '../../src/index.js';
import { registerProcessMetrics } from '../../src/runtime/index.js';
import { Registry } from 'prom-client';
import type { ProviderReport } from '../../src/streams/index.js';
import { reported, staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { capturedLogger } from './log-capture.js';
import { sources } from './run-sources.js';

const quiet = pino({ level: 'silent' });

describe('provider reports in a run', () => {
  it('logs a skipped candidate as a warning naming the source and the cause, shows it on /readyz and counts it, with no option', async () => {
    const { log, lines } = capturedLogger();
    const skipped: ProviderReport = { type: 'skipped', provider: 'file', candidate: 'missing.kubeconfig', reason: 'cannot read missing.kubeconfig: no such file', at: 0 };
    const provider = concat(of(reported(skipped)), staticProvider([fakeCluster('east')]));
    const c = controller({ name: 'reports', provider, resource: configMaps, reconcile: () => done(), watchOptions: { streamingList: false, listerWatcherFor: sources({}) } });
    const handle = await run(c, { logger: log, signals: false, http: { port: 0 }, shutdownDeadlineMs: 5_000 });
    const warn = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'provider: candidate skipped');
    expect(warn).toMatchObject({ level: 40, provider: 'file', candidate: 'missing.kubeconfig', reason: 'cannot read missing.kubeconfig: no such file' });
    expect(handle.health.report().providers).toEqual([{ provider: 'file', type: 'skipped', subject: 'missing.kubeconfig', reason: skipped.reason, at: 0 }]);
    const readyz = await fetch(`${handle.url ?? ''}/readyz`).then((r) => r.text());
    expect(readyz).toContain('provider file: skipped missing.kubeconfig (cannot read missing.kubeconfig: no such file)');
    const metrics = await fetch(`${handle.url ?? ''}/metrics`).then((r) => r.text());
    expect(metrics).toContain('rxfleet_provider_reports_total{provider="file",type="skipped",controller="reports"} 1');
    expect((await handle.stop()).reason).toBe('clean');
  });
});

describe('process metrics in a run', () => {
  const plain = () => controller({ name: 'procs', provider: staticProvider([fakeCluster('east')]), resource: configMaps, reconcile: () => done(), watchOptions: { streamingList: false, listerWatcherFor: sources({}) } });

  it('serves the process and Node runtime metrics by default, and not when turned off', async () => {
    const on = await run(plain(), { logger: quiet, signals: false, http: { port: 0 }, shutdownDeadlineMs: 5_000 });
    const served = await fetch(`${on.url ?? ''}/metrics`).then((r) => r.text());
    expect(served).toContain('process_cpu_user_seconds_total');
    expect(served).toContain('process_resident_memory_bytes');
    expect(served).toContain('nodejs_eventloop_lag_seconds');
    expect(served).toContain('nodejs_heap_size_used_bytes');
    await on.stop();
    const off = await run(plain(), { logger: quiet, signals: false, http: { port: 0 }, shutdownDeadlineMs: 5_000, metrics: { processMetrics: false } });
    const bare = await fetch(`${off.url ?? ''}/metrics`).then((r) => r.text());
    expect(bare).not.toContain('process_cpu_user_seconds_total');
    expect(bare).toContain('rxfleet_engaged_clusters');
    await off.stop();
  });

  it('registers them once on a registry, however often asked', async () => {
    const registry = new Registry();
    const a = await run(plain(), { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000, registry });
    expect(registerProcessMetrics(registry)).toBe(false);
    expect((await registry.metrics()).match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    await a.stop();
  });
});
