// Helpers shared by the benchmarks.

/**
 * The median of `xs` (the mean of the middle two for an even count; NaN when empty).
 *
 * @example
 * median([3, 1, 2]); // 2
 */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
}

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
