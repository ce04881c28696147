// The runtime's small parts on their own: the controller definition's checks, readiness folding,
// metrics labels, signal handling, log redaction and the probe server.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import type { ControllerSpec, Provider } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { clusterName, ConfigError, configMaps, controller, done, objectKey } from '../../src/index.js';
import { logTransition } from '../../src/runtime/cluster-keeper.js';
import { healthTracker } from '../../src/runtime/health-tracker.js';
import { createLogLimiter } from '../../src/runtime/log-limiter.js';
import { logOutcome } from '../../src/runtime/run-parts.js';
import { controllerLogger, controllerMetrics, onStopSignals, startProbeServer } from '../../src/runtime/index.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { capturedLogger } from './log-capture.js';

const east = clusterName('east');
const west = clusterName('west');
const h = (cluster: typeof east, fields: Partial<WatchHealth> = {}): WatchHealth => ({
  cluster,
  resource: 'configmaps',
  state: 'connected',
  synced: true,
  relists: 0,
  reconnects: 0,
  interruptions: 0,
  ...fields,
});

describe('controller()', () => {
  const base: ControllerSpec<never> = { name: 'c', provider: staticProvider([]), resource: configMaps as never, reconcile: () => done() };

  it('refuses a definition without a provider, saying what to pass', () => {
    const noProvider = { ...base, provider: undefined as unknown as Provider };
    expect(() => controller(noProvider)).toThrow(ConfigError);
    expect(() => controller(noProvider)).toThrow(/no provider given; pass `provider`/);
  });

  it('refuses the removed `source` option, saying what replaced it', () => {
    const withSource = { ...base, source: 'kcp' } as unknown as ControllerSpec<never>;
    expect(() => controller(withSource)).toThrow(ConfigError);
    expect(() => controller(withSource)).toThrow(/`source` was removed; .* pass the provider that engages those clusters as `provider`, and the resource as `resource`/);
  });

  it('refuses an empty name and an overlong field manager', () => {
    expect(() => controller({ ...base, name: ' ' })).toThrow(/`name` is required/);
    expect(() => controller({ ...base, fieldManager: 'x'.repeat(129) })).toThrow(/at most 128/);
  });

  it('defaults the field manager to the name', () => {
    expect(controller(base).fieldManager).toBe('c');
  });
});

describe('healthTracker', () => {
  it('should be ready only once every engaged cluster has synced or been reported unhealthy', () => {
    const t = healthTracker();
    t.phase('running');
    expect(t.report().ready).toBe(true); // an empty fleet is ready
    t.engage(east, ['configmaps']);
    t.engage(west, ['configmaps']);
    expect(t.report().ready).toBe(false);
    t.watchHealth(h(east, { state: 'listing', synced: false }));
    t.watchHealth(h(west));
    expect(t.report().ready).toBe(false);
    t.watchHealth(h(east, { state: 'backingOff', synced: false, lastError: kubeError('NotFound', east, 'the server could not find the requested resource', { code: 404 }) }));
    const r = t.report();
    expect(r.ready).toBe(true);
    expect(r.clusters.find((c) => c.cluster === east)).toMatchObject({ state: 'unhealthy', reason: 'resource configmaps is not served by this cluster (list answered 404): install its CRD, or check the group, version and plural of the descriptor' });
    expect(r.clusters.find((c) => c.cluster === west)?.state).toBe('synced');
  });

  it('should mark a cluster unhealthy, saying since when, while a watch is degraded, even between retries', () => {
    const t = healthTracker();
    t.phase('running');
    t.engage(east, ['configmaps']);
    const lastError = kubeError('Transient', east, 'GET configmaps: 500 Internal Server Error', { code: 500 });
    // A retry opened a request (`connected`) but nothing came through: the watch is still degraded.
    t.watchHealth(h(east, { state: 'connected', degraded: true, failingSinceAt: 0, lastError }));
    expect(t.report().clusters[0]).toMatchObject({
      state: 'unhealthy',
      reason: `degraded: the configmaps watch has been failing since 1970-01-01T00:00:00.000Z without a successful list or event; last error: ${lastError.message}`,
    });
    t.watchHealth(h(east, { state: 'connected', lastError }));
    expect(t.report().clusters[0]?.state).toBe('synced');
  });

  it('should log a watch turning degraded once, however many retries follow, and once when it recovers', () => {
    const { log, lines } = capturedLogger();
    const lastError = kubeError('Transient', east, 'GET configmaps: 500 Internal Server Error', { code: 500 });
    const failing = { lastError, failingSinceAt: 0 };
    const seq = [
      h(east, { ...failing, state: 'backingOff', nextAttemptAt: 12_000 }),
      h(east, { ...failing, state: 'backingOff', nextAttemptAt: 12_000, degraded: true }),
      h(east, { ...failing, state: 'connected', degraded: true }),
      h(east, { ...failing, state: 'backingOff', nextAttemptAt: 24_800, degraded: true }),
      h(east, { ...failing, state: 'connected', degraded: true }),
      h(east, { state: 'connected', lastError, lastEventAt: 30_000 }),
    ];
    seq.forEach((now, i) => {
      logTransition(log, now, seq[i - 1]);
    });
    const degraded = lines.filter((l) => l.includes('degraded: the configmaps watch has been failing'));
    expect(degraded).toHaveLength(1);
    expect(degraded[0]).toContain('"level":50');
    expect(lines.filter((l) => l.includes('watch no longer degraded'))).toHaveLength(1);
  });

  it('should log one "failing" for a watch retrying 5 times and one "recovered", with how long, once data flows', () => {
    const { log, lines } = capturedLogger();
    const lastError = kubeError('Transient', east, 'GET configmaps: 500 Internal Server Error', { code: 500 });
    const failing = { lastError, failingSinceAt: 1_000 };
    const seq: WatchHealth[] = [h(east)];
    // Each retry: backing off, then a request opened (`connected` or `listing`) that fails again.
    for (let i = 0; i < 5; i++) seq.push(h(east, { ...failing, state: 'backingOff', nextAttemptAt: 2_000 * i }), h(east, { ...failing, state: i % 2 === 0 ? 'connected' : 'listing' }));
    seq.push(h(east, { state: 'connected', lastError, lastEventAt: 13_000 })); // a line came through
    seq.forEach((now, i) => {
      logTransition(log, now, seq[i - 1], () => 13_000);
    });
    expect(lines.filter((l) => l.includes('watch failing'))).toHaveLength(1);
    const recovered = lines.filter((l) => l.includes('watch recovered'));
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toContain('"failedForMs":12000');
    expect(recovered[0]).toContain('watch recovered after failing for 12 s');
  });

  it('should log nothing for a retry that opens a request and fails again', () => {
    const { log, lines } = capturedLogger();
    const failing = { lastError: kubeError('Transient', east, 'reset', { code: 500 }), failingSinceAt: 0 };
    const backingOff = h(east, { ...failing, state: 'backingOff', nextAttemptAt: 1_000 });
    const opened = h(east, { ...failing, state: 'connected' });
    logTransition(log, opened, backingOff);
    logTransition(log, backingOff, opened);
    expect(lines).toEqual([]);
  });

  it('should log a new failure episode again after a recovery', () => {
    const { log, lines } = capturedLogger();
    const lastError = kubeError('Transient', east, 'reset', { code: 500 });
    const seq = [h(east), h(east, { lastError, failingSinceAt: 0, state: 'backingOff' }), h(east, { lastError }), h(east, { lastError, failingSinceAt: 5_000, state: 'backingOff' })];
    seq.forEach((now, i) => {
      logTransition(log, now, seq[i - 1], () => 4_000);
    });
    expect(lines.filter((l) => l.includes('watch failing'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('watch recovered'))).toHaveLength(1);
  });

  it('should not be ready while stopping, and forget disengaged clusters', () => {
    const t = healthTracker();
    t.phase('running');
    t.engage(east, ['configmaps']);
    t.disengage(east);
    expect(t.report().clusters).toEqual([]);
    expect(t.watchHealth(h(east))).toBeUndefined(); // a late report of a cluster already gone
    t.phase('stopping');
    expect(t.report().ready).toBe(false);
  });
});

describe('controllerMetrics', () => {
  it('labels reconciles and watches with the cluster, writes by controller only, on a registry of its own', async () => {
    const a = controllerMetrics('one');
    const b = controllerMetrics('two'); // no clash: separate registries
    a.outcome({ key: objectKey(east, 'default', 'x'), cluster: east, result: 'error', attempt: 1, startedAt: 0, durationMs: 12, error: kubeError('Conflict', east, 'x'), retryAfterMs: 5 });
    a.watchHealth(h(east, { relists: 2, reconnects: 1 }), undefined);
    a.watchHealth(h(east, { relists: 3, reconnects: 1 }), h(east, { relists: 2, reconnects: 1 }));
    a.write(east, 'apply', 'ok');
    a.engaged(1);
    const text = await a.registry.metrics();
    expect(text).toContain('rxfleet_reconcile_total{cluster="east",result="error",controller="one"} 1');
    expect(text).toContain('rxfleet_reconcile_errors_total{cluster="east",result="error",reason="Conflict",controller="one"} 1');
    expect(text).toContain('rxfleet_watch_relists_total{cluster="east",resource="configmaps",controller="one"} 3');
    expect(text).toContain('rxfleet_write_requests_total{verb="apply",result="ok",controller="one"} 1');
    expect(text).toContain('rxfleet_engaged_clusters{controller="one"} 1');
    expect(await b.registry.metrics()).not.toContain('cluster="east"');
  });
});

describe('a fan-out failure', () => {
  it('is counted and logged against the member that failed, with the hub whose key was reconciled beside it', async () => {
    const hub = clusterName('hub');
    const member = clusterName('member-3');
    const m = controllerMetrics('fan');
    const o: Outcome = { key: objectKey(hub, 'default', 'x'), cluster: hub, result: 'error', attempt: 1, startedAt: 0, durationMs: 3, error: kubeError('Forbidden', member, 'cannot apply configmaps'), retryAfterMs: 5 };
    m.outcome(o);
    const text = await m.registry.metrics();
    expect(text).toContain('rxfleet_reconcile_total{cluster="hub",result="error",controller="fan"} 1');
    expect(text).toContain('rxfleet_reconcile_errors_total{cluster="member-3",result="error",reason="Forbidden",controller="fan"} 1');
    expect(text).not.toContain('rxfleet_reconcile_errors_total{cluster="hub"');
    const { log, lines } = capturedLogger();
    logOutcome(log, o, createLogLimiter({ now: () => 0 }));
    expect(lines[0]).toContain('"cluster":"member-3"');
    expect(lines[0]).toContain('"reconciledIn":"hub"');
    // A failure in the key's own cluster carries no reconciledIn.
    logOutcome(log, { ...o, error: kubeError('Conflict', hub, 'x') }, createLogLimiter({ now: () => 0 }));
    expect(lines[1]).toContain('"cluster":"hub"');
    expect(lines[1]).not.toContain('reconciledIn');
  });
});

describe('logOutcome', () => {
  const failure = (cluster: typeof east, error: unknown, startedAt: number): Outcome => ({ key: objectKey(cluster, 'default', 'x'), cluster, result: 'error', attempt: 1, startedAt, durationMs: 1, error, retryAfterMs: 5 });

  it('logs 6 identical failures in 20 s once, then the next window says how many were suppressed', () => {
    const { log, lines } = capturedLogger();
    let t = 0;
    const limiter = createLogLimiter({ now: () => t });
    const notFound = kubeError('NotFound', east, 'configmaps "a" not found', { code: 404 });
    for (const at of [0, 4_000, 8_000, 12_000, 16_000, 20_000]) {
      t = at;
      logOutcome(log, failure(east, notFound, at), limiter);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('repeated');
    t = 30_000;
    logOutcome(log, failure(east, notFound, t), limiter);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"repeated":5');
  });

  it('does not merge failures of another cluster, type or message', () => {
    const { log, lines } = capturedLogger();
    const limiter = createLogLimiter({ now: () => 0 });
    logOutcome(log, failure(east, kubeError('NotFound', east, 'a'), 0), limiter);
    logOutcome(log, failure(west, kubeError('NotFound', west, 'a'), 0), limiter);
    logOutcome(log, failure(east, kubeError('Conflict', east, 'a'), 0), limiter);
    logOutcome(log, failure(east, new Error('boom'), 0), limiter);
    logOutcome(log, failure(east, new Error('bang'), 0), limiter);
    logOutcome(log, failure(east, new Error('bang'), 0), limiter);
    expect(lines).toHaveLength(5);
  });
});

describe('onStopSignals', () => {
  it('asks for a graceful stop on the first signal and an immediate one on the next', () => {
    const target = new EventEmitter();
    const calls: string[] = [];
    const uninstall = onStopSignals(target, (s) => calls.push(`graceful ${s}`), (s) => calls.push(`now ${s}`));
    target.emit('SIGTERM');
    target.emit('SIGINT');
    uninstall();
    target.emit('SIGTERM');
    expect(calls).toEqual(['graceful SIGTERM', 'now SIGINT']);
    expect(target.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('controllerLogger', () => {
  it('redacts tokens, Authorization headers and Secret data even on an injected logger', () => {
    const { log: out, lines } = capturedLogger();
    const log = controllerLogger(out, 'c');
    log.info({ headers: { authorization: 'Bearer s3cret' }, token: 's3cret', secret: { data: { k: 's3cret' } } }, 'hello');
    expect(lines.join('')).not.toContain('s3cret');
    expect(lines.join('')).toContain('"controller":"c"');
  });
});

describe('startProbeServer', () => {
  it('serves /healthz, /readyz (503 until ready) and /metrics on 127.0.0.1', async () => {
    const t = healthTracker();
    const m = controllerMetrics('probe');
    const server = await startProbeServer(t, m.registry, { port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.text()).toContain('phase: starting');
      t.phase('running');
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('rxfleet_engaged_clusters{controller="probe"} 0');
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
