// Timeouts that never beat an answer already there. After the event loop was blocked (a long
// synchronous task, a GC pause, SIGSTOP), Node runs every timer that fell due before it reads the
// sockets: a request's deadline would fire while its response sits unread, and the answer that
// came in time would be thrown away as a timeout. These timers, once due, first let the loop read
// its pending I/O (two turns of setImmediate, which runs after the poll phase), then decide.

/**
 * A timeout that can be cleared.
 *
 * @example
 * ```ts
 * const t = ioTimeout(() => fail('no answer'), 10_000);
 * t.clear(); // the answer came
 * ```
 */
export interface IoTimeout {
  /** Cancels it (also once it is due and waiting for the pending I/O). */
  clear(): void;
}

/**
 * Calls `f` once the I/O that arrived while the loop was busy has been read; cancellable.
 *
 * @example
 * ```ts
 * const cancel = afterPendingIo(() => checkDeadline());
 * ```
 * @param f - what to run.
 * @returns the cancel function.
 */
export function afterPendingIo(f: () => void): () => void {
  let handle = setImmediate(() => {
    handle = setImmediate(f);
  });
  return () => {
    clearImmediate(handle);
  };
}

/**
 * `setTimeout(onExpire, ms)` (unref'd: it never keeps the process alive alone), except that when it
 * is due it waits for the pending I/O to be read, and does nothing if cleared meanwhile.
 *
 * @example
 * ```ts
 * const deadline = ioTimeout(() => cancel(headersTimeout(cluster, describe, ms, 'headers')), ms);
 * stream.on('response', () => deadline.clear());
 * ```
 * @param onExpire - called once, if not cleared first.
 * @param ms - the delay.
 * @returns the timeout.
 */
export function ioTimeout(onExpire: () => void, ms: number): IoTimeout {
  let cancel: (() => void) | undefined;
  const timer = setTimeout(() => {
    cancel = afterPendingIo(onExpire);
  }, ms);
  timer.unref();
  return {
    clear() {
      clearTimeout(timer);
      cancel?.();
    },
  };
}
