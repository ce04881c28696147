// The log of a watch shared by many clusters: one line per episode of the shared watch however
// many clusters' views report it, naming the watch and the count; a flapping one rate-limited.
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { WatchHealth } from '../../src/streams/index.js';
import { kubeError } from '../../src/client/index.js';
import { clusterName } from '../../src/index.js';
import { createLogLimiter } from '../../src/runtime/log-limiter.js';
import { sharedWatchLog } from '../../src/runtime/shared-watch-log.js';

const watch = clusterName('https://kcp/services/apiexport/x/widgets/clusters/*');
const lastError = kubeError('ClusterUnreachable', watch, 'connection refused');
const view = (ws: number, extra: Partial<WatchHealth>): WatchHealth => ({
  cluster: clusterName(`ws-${ws}`),
  resource: 'widgets.example.com',
  state: 'connected',
  synced: true,
  relists: 0,
  reconnects: 0,
  interruptions: 0,
  shared: { watch, clusters: 3 },
  ...extra,
});

describe('sharedWatchLog', () => {
  it('logs each episode of a shared watch once for all its views, and a flapping one at most once per window with the count held back', () => {
    const lines: { readonly msg: string; readonly watch?: string; readonly clusters?: number; readonly repeated?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as (typeof lines)[number]) });
    let t = 0;
    const shared = sharedWatchLog(logger, createLogLimiter({ windowMs: 30_000, now: () => t }));
    const episode = (since: number): void => {
      for (const ws of [0, 1, 2]) {
        const before = view(ws, {});
        const failing = view(ws, { state: 'backingOff', lastError, failingSinceAt: since, nextAttemptAt: since + 1_000 });
        shared.transition(logger, failing, before, () => t);
        shared.transition(logger, view(ws, { lastError }), failing, () => t);
      }
    };
    episode(0);
    t = 10_000;
    episode(10_000);
    t = 40_000;
    episode(40_000);
    const failed = lines.filter((l) => l.msg.startsWith('shared watch failing'));
    expect(failed.map((l) => [l.watch, l.clusters, l.repeated])).toEqual([
      [watch, 3, undefined],
      [watch, 3, 1],
    ]);
    expect(lines.filter((l) => l.msg.startsWith('shared watch recovered'))).toHaveLength(3);
  });
});
