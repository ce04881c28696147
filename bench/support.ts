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
