// Runs whose requests the apply-unsent tests count: a controller run with its probes (and metrics) on
// a free port, stopped after each test; a counter summed over its series; and the restart that
// proves an apply needless (every object reconciled again, counted unsent, none sent).
import { pino } from 'pino';
import { afterEach } from 'vitest';
import type { Controller, KubeObject, RunHandle } from '../../src/index.js';
import { run } from '../../src/index.js';
import type { EventuallyOptions } from '../support/wait.js';
import { eventually } from '../support/wait.js';
import { httpGet } from './runtime-support.js';

/** A running controller and its metrics page. */
export interface CountedRun {
  readonly handle: RunHandle;
  /** The run's `/metrics` text. */
  metrics(): Promise<string>;
}

/**
 * The sum of a counter's series whose labels contain every `label="value"` given.
 *
 * @example
 * ```ts
 * const applies = counter(await run.metrics(), 'rxfleet_requests_total', ['verb="apply"', 'result="2xx"']);
 * ```
 * @param metrics - the metrics text.
 * @param name - the counter's name.
 * @param labels - `label="value"` pairs a series must contain.
 * @returns the sum.
 */
export function counter(metrics: string, name: string, labels: readonly string[]): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/**
 * Starts controller runs, silent, with no signal handlers and their probes on a free port; every
 * run started in a test is stopped after it (registered here, in the calling file).
 *
 * @example
 * ```ts
 * const start = countedRuns();
 * const first = await start(controller({ ... }));
 * ```
 * @returns what starts a run.
 */
export function countedRuns(): <T extends KubeObject>(c: Controller<T>) => Promise<CountedRun> {
  const handles: RunHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
  });
  return async (c) => {
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: { port: 0 } });
    handles.push(handle);
    const url = handle.url;
    if (url === undefined) throw new Error('the run serves no probes');
    return { handle, metrics: async () => (await httpGet(`${url}/metrics`)).body };
  };
}

/**
 * Starts the run again over converged objects and waits until it has reconciled every one of them
 * and found each apply needless (`rxfleet_writes_unsent_total` of `verb="apply"` at least `n`).
 *
 * @example
 * ```ts
 * const { metrics } = await unsentAfterRestart(start, 20, 'input');
 * expect(counter(metrics, 'rxfleet_requests_total', ['verb="apply"'])).toBe(0);
 * ```
 * @param start - starts the run.
 * @param n - how many objects it reconciles.
 * @param what - what an object is, for the wait's message.
 * @param opts - the wait's options.
 * @returns the restarted run and its metrics at that moment.
 */
export async function unsentAfterRestart(start: () => Promise<CountedRun>, n: number, what: string, opts: EventuallyOptions = {}): Promise<{ readonly run: CountedRun; readonly metrics: string }> {
  const restarted = await start();
  const metrics = await eventually(`every ${what} reconciled after the restart`, async () => {
    const m = await restarted.metrics();
    return counter(m, 'rxfleet_writes_unsent_total', ['verb="apply"']) >= n ? m : undefined;
  }, opts);
  return { run: restarted, metrics };
}
