// The deadline of a request's response headers, connect and TLS handshake included. A server or a
// proxy that accepts the connection and never answers must fail the request in seconds, with an
// error saying how far it got, instead of leaving a watch "connected" until its inactivity timer
// fires minutes later (or a connect to a blackholed address waiting for the OS's timeout).
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { IoTimeout } from './io-timeout.js';
import { ioTimeout } from './io-timeout.js';

// From getBuiltinModule, not `import`: see h2-pool.ts.
const { TLSSocket } = process.getBuiltinModule('node:tls');

/**
 * How far a request had got when its deadline passed: no TCP connection yet, a connection whose
 * TLS handshake had not finished, or a request sent and no response headers back.
 *
 * @example
 * ```ts
 * const stage: HeadersStage = 'tls';
 * ```
 */
export type HeadersStage = 'connect' | 'tls' | 'headers';

/**
 * The bounds of one request, both counted from the moment the request is created.
 *
 * @example
 * ```ts
 * const bounds: HeadersBounds = { connectMs: 10_000, headersMs: 60_000 };
 * ```
 */
export interface HeadersBounds {
  /** By then the connection (and its TLS handshake) must be up. */
  readonly connectMs: number;
  /** By then the response headers must have arrived. */
  readonly headersMs: number;
}

const stageText: Readonly<Record<HeadersStage, string>> = {
  connect: 'the TCP connection was not established',
  tls: 'the server accepted the connection but did not complete the TLS handshake',
  headers: 'the request was sent and the server did not answer',
};

/**
 * The error of a request whose deadline passed. Before the connection was up nothing was sent: the
 * server is unreachable, and even a write can be sent again. After it the request may have been
 * processed: a `Timeout`, outcome unknown. Both are retryable.
 *
 * @example
 * ```ts
 * headersTimeout(clusterName('east'), 'GET /api/v1/pods', 10_000, 'headers').message;
 * // 'cluster "east" GET /api/v1/pods: no response headers within 10000 ms (the request was sent and the server did not answer)'
 * ```
 * @param cluster - the cluster concerned.
 * @param request - `METHOD path` of the request.
 * @param ms - the bound that passed.
 * @param stage - how far the request had got.
 * @returns the error value.
 */
export function headersTimeout(cluster: ClusterName, request: string, ms: number, stage: HeadersStage): KubeError {
  return kubeError(stage === 'headers' ? 'Timeout' : 'ClusterUnreachable', cluster, `no response headers within ${ms} ms (${stageText[stage]})`, {
    request,
    cause: 'ETIMEDOUT',
  });
}

/**
 * Arms the deadline of one request: `onExpire` is called once, with the stage the request had
 * reached and the bound that passed, unless the response headers arrive (or the request closes)
 * first. The caller destroys the request. Call right after creating it (before its socket is assigned).
 *
 * @example
 * ```ts
 * const r = https.request(opts);
 * armHeadersDeadline(r, { connectMs: 10_000, headersMs: 10_000 }, (stage: string, ms: number) => r.destroy(new Error(`${stage} after ${ms} ms`)));
 * ```
 * @param r - the request, just created.
 * @param bounds - when the connection must be up and when the headers must have arrived.
 * @param onExpire - what to do when a bound passes.
 */
export function armHeadersDeadline(r: ClientRequest, bounds: HeadersBounds, onExpire: (stage: HeadersStage, ms: number) => void): void {
  let stage: HeadersStage = 'connect';
  const timers: IoTimeout[] = [];
  const disarm = (): void => {
    for (const t of timers) t.clear();
    timers.length = 0;
  };
  const expire = (ms: number): void => {
    disarm();
    onExpire(stage, ms);
  };
  const watchSocket = (s: Socket): void => {
    // A keep-alive socket handed out again is connected (and past its handshake) already.
    if (!s.connecting) {
      stage = 'headers';
      return;
    }
    const tls = s instanceof TLSSocket;
    s.once('connect', () => {
      if (stage === 'connect') stage = tls ? 'tls' : 'headers';
    });
    if (tls) {
      s.once('secureConnect', () => {
        stage = 'headers';
      });
    }
  };
  const connectMs = Math.min(bounds.connectMs, bounds.headersMs);
  if (connectMs < bounds.headersMs) {
    timers.push(
      ioTimeout(() => {
        if (stage !== 'headers') expire(connectMs);
      }, connectMs),
    );
  }
  // Decided once what came while the loop was busy has been read (io-timeout.ts); never keeping the process alive on their own.
  timers.push(
    ioTimeout(() => {
      expire(bounds.headersMs);
    }, bounds.headersMs),
  );
  if (r.socket === null) r.once('socket', watchSocket);
  else watchSocket(r.socket);
  r.once('response', disarm);
  r.once('close', disarm);
}
