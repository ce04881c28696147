// The scrubbing view of a pino logger: public API only (a logger with none of pino's internals is
// scrubbed too), custom levels and level changes, the line-level net of rxfleet's own logger, the
// bounds of one call's work.
import type { Logger } from 'pino';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { controllerLogger, defaultLogger } from '../../src/runtime/index.js';
import { lines, syncWrites } from './log-capture.js';

const token = 'tok-canary-8f7e6d5c4b3a';

// A logger with pino's public API and nothing else: no internal symbols to reach into.
function publicOnly(calls: unknown[][], bindings: unknown[]): Logger {
  const values: Record<string, number> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 };
  const log: Record<string, unknown> = {
    level: 'info',
    levels: { values, labels: {} },
    isLevelEnabled: (l: string) => (values[l] ?? 0) >= 30,
    child: (b: unknown) => {
      bindings.push(b);
      return publicOnly(calls, bindings);
    },
    setBindings: (b: unknown) => bindings.push(b),
  };
  for (const l of Object.keys(values)) log[l] = (...args: unknown[]) => calls.push(args);
  return log as unknown as Logger;
}

describe('the scrubbing logger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('scrubs through a logger that has only pino’s public API', () => {
    const calls: unknown[][] = [];
    const bindings: unknown[] = [];
    const log = controllerLogger(publicOnly(calls, bindings), 'c');
    log.error(new Error(`denied: token=${token}`));
    log.child({ note: `Bearer ${token}` }).info('got %j', { note: `Bearer ${token}` });
    expect(JSON.stringify([calls, bindings, calls.map((c) => c.map((a) => (a instanceof Error ? a.message : a)))])).not.toContain(token);
    expect(calls).toHaveLength(2);
    expect(bindings).toContainEqual({ controller: 'c' });
  });

  it('scrubs custom levels, and the levels a change of level turns on', () => {
    const { stream, text } = lines();
    const root = pino({ customLevels: { audit: 35 } }, stream);
    const log = controllerLogger(root as unknown as Logger, 'c') as unknown as Logger<'audit'>;
    log.audit(new Error(`audited token=${token}`));
    log.debug(`not written: token=${token}`);
    log.level = 'debug';
    log.debug(new Error(`now written: token=${token}`));
    const out = text();
    expect(out).not.toContain(token);
    expect(out).toContain('"msg":"audited token=[Redacted]"');
    expect(out).toContain('"msg":"now written: token=[Redacted]"');
    expect(out).not.toContain('not written');
  });

  it('scrubs a credential split across a format and its arguments, in each line rxfleet’s own logger writes', () => {
    for (const format of ['json', 'pretty']) {
      vi.stubEnv('LOG_FORMAT', format);
      const text = syncWrites();
      const log = controllerLogger(defaultLogger(), 'c');
      log.info('%s=%s', 'access_token', token);
      log.child({ cluster: 'east' }).warn('%s %s', 'Authorization:', `Bearer ${token}`);
      vi.restoreAllMocks();
      expect(text()).not.toContain(token);
      expect(text()).toContain('access_token=[Redacted]');
    }
  });

  it('bounds the work of one call: cycles, depth and size fail closed', () => {
    const { stream, text } = lines();
    const log = controllerLogger(pino(stream), 'c');
    const loop = new Error(`loop token=${token}`);
    loop.cause = loop;
    log.error(loop);
    const many = Array.from({ length: 150_000 }, () => `token=${token}`);
    log.info({ many }, 'many');
    let deep: Record<string, unknown> = { note: `token=${token}` };
    for (let i = 0; i < 60; i++) deep = { next: deep };
    log.info('%j', deep);
    const out = text();
    expect(out).not.toContain(token);
    const written = out.split('\n').filter((l) => l !== '');
    expect(written).toHaveLength(3);
    expect(written[0]).toContain('[Circular]');
    // Past 100 000 values, the rest of the array is cut rather than walked.
    const logged = (JSON.parse(written[1] ?? '{}') as { many: string[] }).many;
    expect(logged).toHaveLength(150_000);
    expect(logged.filter((x) => x === '[Truncated]').length).toBeGreaterThan(40_000);
    expect(written[2]).toContain('[Truncated]');
  });
});
