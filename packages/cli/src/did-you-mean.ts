// "did you mean …?": the known names nearest to a mistyped one, by edit distance.

/**
 * The Levenshtein distance: how many single-character insertions, deletions or substitutions turn
 * `a` into `b`.
 *
 * @example
 * ```ts
 * editDistance('bakcups', 'backups'); // 2
 * ```
 * @param a - one string.
 * @param b - the other.
 * @returns the distance.
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidates nearest to `wrong` (case ignored): those at the least distance, at most `limit`
 * of them in the candidates' order, and none further than a third of the longer name (at least 2
 * edits): a typo, not another word.
 *
 * @example
 * ```ts
 * nearest('bakcups.ops.example.com', ['backups.ops.example.com', 'configmaps']); // ['backups.ops.example.com']
 * ```
 * @param wrong - the name given.
 * @param candidates - the known names.
 * @param limit - how many to return; default 3.
 * @returns the nearest names.
 */
export function nearest(wrong: string, candidates: readonly string[], limit = 3): readonly string[] {
  const w = wrong.toLowerCase();
  const scored = [...new Set(candidates)]
    .map((c, i) => ({ c, i, d: editDistance(w, c.toLowerCase()) }))
    .filter(({ c, d }) => d > 0 && d <= Math.max(2, Math.floor(Math.max(w.length, c.length) / 3)));
  const least = Math.min(...scored.map(({ d }) => d));
  return scored
    .filter(({ d }) => d === least)
    .slice(0, limit)
    .map(({ c }) => c);
}
