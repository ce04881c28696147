// The driver's view of the outputs: one watch per workspace on ConfigMaps, recording for every
// `x-out` the `gen` of its data and when that gen first arrived (performance.now()). Watches
// restart when the server ends them, without moving the arrival times of unchanged outputs.
import type { BenchWorkspace } from './fleet-setup.js';
import type { Kube, WatchEvent } from './kube.js';

/** One output as last seen. */
export interface SeenOutput {
  readonly gen: string;
  /** When this gen was first seen. */
  readonly at: number;
}

/** Arrival times of outputs across the fleet. */
export interface OutputTracker {
  /** `<workspace>/<input name>` → the output of that input, if present. */
  get(key: string): SeenOutput | undefined;
  /** Outputs present now. */
  count(): number;
  /** Time of the first output created since `resetFirst()`. */
  firstCreatedAt(): number | undefined;
  resetFirst(): void;
  /** Any watch error so far (a broken measurement must not pass silently). */
  failure(): Error | undefined;
  stop(): void;
}

/**
 * Watches every workspace's ConfigMaps.
 *
 * @example
 * const outputs = trackOutputs(kube, fleet.workspaces);
 * await eventually('outputs gone', () => outputs.count() === 0, { timeoutMs: 60_000, intervalMs: 20 });
 */
export function trackOutputs(kube: Kube, workspaces: readonly BenchWorkspace[]): OutputTracker {
  const seen = new Map<string, SeenOutput>();
  let first: number | undefined;
  let failed: Error | undefined;
  let stopped = false;
  const watches = new Map<string, { stop(): void }>();
  const restarts = new Map<string, number>();

  const onEvent = (ws: string, e: WatchEvent): void => {
    const now = performance.now();
    const name = e.object.metadata?.name;
    if (!name?.endsWith('-out')) return;
    const key = `${ws}/${name.slice(0, -'-out'.length)}`;
    if (e.type === 'DELETED') {
      seen.delete(key);
      return;
    }
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    const gen = e.object.data?.gen ?? '';
    const prev = seen.get(key);
    if (prev === undefined) first ??= now;
    if (prev?.gen !== gen) seen.set(key, { gen, at: now });
  };

  const start = (ws: BenchWorkspace): void => {
    const w = kube.watch(
      ws.cmPath,
      (e) => {
        onEvent(ws.name, e);
      },
      (err) => {
        if (stopped) return;
        const n = (restarts.get(ws.name) ?? 0) + 1;
        restarts.set(ws.name, n);
        // Bounded: a watch that keeps failing is a broken measurement, not something to wait out.
        if (n > 20) {
          failed ??= new Error(`watch of outputs in ${ws.name} ended ${n} times; last: ${err?.message ?? 'closed by the server'}`);
          return;
        }
        setTimeout(() => {
          if (!stopped) start(ws);
        }, 200);
      },
    );
    watches.set(ws.name, w);
  };
  for (const ws of workspaces) start(ws);

  return {
    get: (key) => seen.get(key),
    count: () => seen.size,
    firstCreatedAt: () => first,
    resetFirst: () => {
      first = undefined;
    },
    failure: () => failed,
    stop: () => {
      stopped = true;
      for (const w of watches.values()) w.stop();
    },
  };
}
