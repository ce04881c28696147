// Signal handling for a run: the first SIGTERM/SIGINT asks for a graceful stop, a second one asks
// to stop at once (what an impatient Ctrl-C or a kubelet's SIGKILL countdown means).

/**
 * A process-like object that emits signals. `process` is one; tests pass an `EventEmitter`.
 *
 * @example
 * ```ts
 * const target: SignalTarget = new EventEmitter();
 * ```
 */
export interface SignalTarget {
  /** Adds a listener. */
  on(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  /** Removes a listener. */
  off(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/**
 * Listens for SIGTERM and SIGINT until uninstalled: the first calls `graceful`, any later one `now`.
 *
 * @example
 * ```ts
 * const uninstall = onStopSignals(process, () => handle.stop(), () => handle.stop({ deadlineMs: 0 }));
 * await handle.done;
 * uninstall();
 * ```
 * @param target - `process`, or a stand-in.
 * @param graceful - the first signal's action, given the signal's name.
 * @param now - the action of any further signal.
 * @returns a function that removes the listeners (so the process's default handling returns).
 */
export function onStopSignals(target: SignalTarget, graceful: (signal: string) => void, now: (signal: string) => void): () => void {
  let seen = 0;
  const handlers = (['SIGTERM', 'SIGINT'] as const).map((signal) => {
    const listener = (): void => {
      if (seen++ === 0) graceful(signal);
      else now(signal);
    };
    target.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of handlers) target.off(signal, listener);
  };
}
