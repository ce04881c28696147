// A run that ends on a misconfiguration before it ever ran says so last: no "controller running"
// line after its "stopped" line, and no process signal handler left behind.
import { concat, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { configMaps, controller, done, run } from '../../src/index.js';
import { reported, staticProvider } from '../../src/streams/index.js';
import { capturedLogger } from './log-capture.js';

describe('a run stopped by a configuration error during its start', () => {
  it('logs "stopped" as its last line, never "controller running", and installs no signal handler', async () => {
    const { log, lines } = capturedLogger();
    const sigterm = process.listenerCount('SIGTERM');
    // The only candidate is skipped and the first pass ends with no cluster: a misconfiguration
    // (an empty fleet is not allowed by default), found during the start.
    const skipped = reported({ type: 'skipped', provider: 'file', candidate: 'missing.kubeconfig', reason: 'cannot read missing.kubeconfig: no such file', at: 0 });
    const c = controller({ name: 'empty', provider: concat(of(skipped), staticProvider([])), resource: configMaps, reconcile: () => done() });
    const handle = await run(c, { logger: log, http: false, shutdownDeadlineMs: 5_000 });
    const result = await handle.done;
    expect(result.reason).toBe('config');
    const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs.filter((m) => m === 'controller running')).toEqual([]);
    expect(msgs.at(-1)).toMatch(/^stopped: /);
    expect(process.listenerCount('SIGTERM')).toBe(sigterm);
  });
});
