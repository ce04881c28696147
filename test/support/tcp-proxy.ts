// A TCP proxy on 127.0.0.1 for fault tests: the client connects to the proxy, the proxy to the
// server, and bytes are forwarded untouched (TLS passes through: the client still verifies the
// server's certificate, whose SAN IP:127.0.0.1 holds whatever the port). What happens to the bytes
// is the proxy's mode, switchable at run time, applied to open connections and new ones alike.
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { listenLocal } from './ports.js';

/**
 * What the proxy does to traffic.
 *
 * - `pass`: forwards both ways.
 * - `cut`: each connection forwards `afterBytes` more bytes towards the client, then ends (FIN)
 *   both sides; a TLS record cut in two never decrypts, so the client sees the stream end
 *   mid-record (mid-line when a line spans several records: objects over 16 KiB).
 * - `reset`: sends an RST on every open connection, and on every new one as soon as it is accepted.
 * - `blackhole`: forwards nothing either way (bytes are held, not dropped, as in a partition the
 *   TCP stack would retransmit across); new connections are accepted and left unanswered until
 *   the mode changes.
 * - `drip`: forwards `bytesPerTick` bytes per direction every `tickMs`.
 * - `acceptNoAnswer`: open connections pass; new ones are accepted and never connected upstream.
 *
 * @example
 * ```ts
 * proxy.set({ type: 'drip', bytesPerTick: 256, tickMs: 10 });
 * ```
 */
export type ProxyMode =
  | { readonly type: 'pass' }
  | { readonly type: 'cut'; readonly afterBytes: number }
  | { readonly type: 'reset' }
  | { readonly type: 'blackhole' }
  | { readonly type: 'drip'; readonly bytesPerTick: number; readonly tickMs: number }
  | { readonly type: 'acceptNoAnswer' };

/** What the proxy has done so far. @example `proxy.stats.cuts > 0` */
export interface ProxyStats {
  /** Connections accepted from clients. */
  accepted: number;
  /** Connections ended by `cut`. */
  cuts: number;
  /** Connections reset (RST) by `reset`. */
  resets: number;
  /** Connections accepted and never connected upstream (`acceptNoAnswer`). */
  unanswered: number;
  /** Bytes received from clients, forwarded or held: what a client has sent, even into a blackhole. */
  received: number;
  /** Bytes received from the server, forwarded or held. */
  receivedUpstream: number;
}

/**
 * A running proxy.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy(6443);
 * proxy.set({ type: 'reset' });
 * await proxy.close();
 * ```
 */
export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  readonly stats: ProxyStats;
  /** Connections open now (client side). */
  open(): number;
  mode(): ProxyMode;
  /** Switches the mode; it applies at once to open connections. */
  set(mode: ProxyMode): void;
  /** Sends an RST on every open connection, whatever the mode (new connections keep following it). */
  resetAll(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

// A held direction pauses its source beyond this, so a blackhole or a drip cannot buffer without bound.
const HIGH_WATER = 1 << 20;

interface Direction {
  readonly queue: Buffer[];
  queued: number;
}

interface Conn {
  readonly client: Socket;
  upstream: Socket | undefined;
  readonly up: Direction;
  readonly down: Direction;
  /** Bytes still allowed towards the client under `cut`. */
  budget: number | undefined;
  noAnswer: boolean;
  dead: boolean;
  drip: NodeJS.Timeout | undefined;
}

/**
 * Starts a proxy on 127.0.0.1 (free port) to `targetPort` on 127.0.0.1, in mode `pass`.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy(Number(new URL(baseUrl).port));
 * const server = `https://127.0.0.1:${proxy.port}`;
 * ```
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let mode: ProxyMode = { type: 'pass' };
  const conns = new Set<Conn>();
  const stats: ProxyStats = { accepted: 0, cuts: 0, resets: 0, unanswered: 0, received: 0, receivedUpstream: 0 };

  const kill = (c: Conn, how: 'end' | 'destroy' | 'reset'): void => {
    if (c.dead) return;
    c.dead = true;
    conns.delete(c);
    if (c.drip !== undefined) clearInterval(c.drip);
    if (how === 'reset') {
      c.client.resetAndDestroy();
      c.upstream?.resetAndDestroy();
    } else if (how === 'end') {
      // What was written reaches the client before the FIN.
      c.client.end();
      c.upstream?.destroy();
    } else {
      c.client.destroy();
      c.upstream?.destroy();
    }
  };

  const sourceOf = (c: Conn, d: Direction): Socket | undefined => (d === c.up ? c.client : c.upstream);
  const sinkOf = (c: Conn, d: Direction): Socket | undefined => (d === c.up ? c.upstream : c.client);

  /** Writes up to `max` queued bytes of `d`; false when the sink asked to wait (backpressure). */
  const write = (c: Conn, d: Direction, max: number): boolean => {
    const sink = sinkOf(c, d);
    if (sink === undefined) return true;
    let left = max;
    let ok = true;
    for (let head = d.queue[0]; left > 0 && head !== undefined && !c.dead; head = d.queue[0]) {
      const part = head.length <= left ? head : head.subarray(0, left);
      if (part === head) d.queue.shift();
      else d.queue[0] = head.subarray(left);
      d.queued -= part.length;
      left -= part.length;
      ok = sink.write(part) && ok;
    }
    return ok;
  };

  const pump = (c: Conn): void => {
    if (c.dead) return;
    if (mode.type !== 'drip' && c.drip !== undefined) {
      clearInterval(c.drip);
      c.drip = undefined;
    }
    for (const d of [c.up, c.down]) {
      const source = sourceOf(c, d);
      const sink = sinkOf(c, d);
      const hold = mode.type === 'blackhole' || mode.type === 'drip' || sink === undefined;
      if (hold) {
        if (d.queued > HIGH_WATER) source?.pause();
        continue;
      }
      let max = Infinity;
      if (mode.type === 'cut' && d === c.down) max = c.budget ?? Infinity;
      const before = d.queued;
      const ok = write(c, d, max);
      if (mode.type === 'cut' && d === c.down && c.budget !== undefined) {
        c.budget -= before - d.queued;
        if (c.budget <= 0) {
          stats.cuts++;
          kill(c, 'end');
          return;
        }
      }
      if (ok) source?.resume();
      else {
        source?.pause();
        sink.once('drain', () => { pump(c); });
      }
    }
    if (mode.type === 'drip' && c.drip === undefined) {
      const { bytesPerTick, tickMs } = mode;
      c.drip = setInterval(() => {
        for (const d of [c.up, c.down]) {
          write(c, d, bytesPerTick);
          if (d.queued < HIGH_WATER) sourceOf(c, d)?.resume();
        }
      }, tickMs);
    }
  };

  const dial = (c: Conn): void => {
    if (c.upstream !== undefined || c.noAnswer || c.dead) return;
    const upstream = connect(targetPort, targetHost);
    c.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      stats.receivedUpstream += chunk.length;
      c.down.queue.push(chunk);
      c.down.queued += chunk.length;
      pump(c);
    });
    upstream.on('error', () => { kill(c, 'destroy'); });
    upstream.on('close', () => { kill(c, 'end'); });
    upstream.on('connect', () => { pump(c); });
  };

  const server: Server = createServer({ pauseOnConnect: false }, (client) => {
    stats.accepted++;
    const c: Conn = { client, upstream: undefined, up: { queue: [], queued: 0 }, down: { queue: [], queued: 0 }, budget: mode.type === 'cut' ? mode.afterBytes : undefined, noAnswer: false, dead: false, drip: undefined };
    conns.add(c);
    client.on('error', () => { kill(c, 'destroy'); });
    client.on('close', () => { kill(c, 'destroy'); });
    client.on('data', (chunk: Buffer) => {
      stats.received += chunk.length;
      c.up.queue.push(chunk);
      c.up.queued += chunk.length;
      pump(c);
    });
    if (mode.type === 'reset') {
      stats.resets++;
      kill(c, 'reset');
      return;
    }
    if (mode.type === 'acceptNoAnswer') {
      c.noAnswer = true;
      stats.unanswered++;
      return;
    }
    if (mode.type !== 'blackhole') dial(c);
  });

  const port = await listenLocal(server);

  return {
    port,
    stats,
    open: () => conns.size,
    mode: () => mode,
    set(next) {
      mode = next;
      for (const c of [...conns]) {
        if (next.type === 'reset') {
          stats.resets++;
          kill(c, 'reset');
          continue;
        }
        c.budget = next.type === 'cut' ? next.afterBytes : undefined;
        if (next.type !== 'blackhole' && next.type !== 'acceptNoAnswer') dial(c);
        pump(c);
      }
    },
    resetAll() {
      for (const c of [...conns]) {
        stats.resets++;
        kill(c, 'reset');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of [...conns]) kill(c, 'destroy');
        server.close(() => { resolve(); });
      }),
  };
}
