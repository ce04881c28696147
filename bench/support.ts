// Helpers shared by the benchmarks.

/**
 * Waits until `probe` holds, checking every `intervalMs` (0: on every turn of the event loop, for
 * timings that must not be rounded up to a polling interval); fails naming `what` after `timeoutMs`.
 *
 * @example
 * await waitFor('every update seen', () => seen === total, { timeoutMs: 120_000, intervalMs: 0 });
 */
export async function waitFor(what: string, probe: () => boolean, opts: { readonly timeoutMs: number; readonly intervalMs: number }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => (opts.intervalMs === 0 ? setImmediate(r) : setTimeout(r, opts.intervalMs)));
  }
}
