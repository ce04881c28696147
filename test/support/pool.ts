// Bounded concurrency for test set-up and benchmarks: many writes to a real server, a few at a time.

/**
 * Runs `fn` over `items` with at most `limit` in flight.
 *
 * @example
 * await pool(names, 8, async (name) => { await create(name); });
 */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
