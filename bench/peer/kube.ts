// The driver's own line to kcp: JSON requests and watches with kcp's admin credentials, over one
// keep-alive agent. Independent of both controllers under test (rxfleet's client is not used, so
// the measuring side does not share code with one of the measured).
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { Agent, request as httpsRequest } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** A JSON answer: status and parsed body (the raw text when not JSON). */
export interface KubeResponse {
  readonly status: number;
  readonly body: unknown;
}

/** One watch event as the API server sends it. */
export interface WatchEvent {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly name?: string; readonly annotations?: Record<string, string>; readonly resourceVersion?: string }; readonly data?: Record<string, string> };
}

/** Requests and watches against one kcp server, paths relative to its origin (`/clusters/root:x/...`). */
export interface Kube {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponse>;
  /** Streams events of `path` (a list URL; `watch=1` is added) until `stop()`. */
  watch(path: string, onEvent: (e: WatchEvent) => void, onEnd: (err?: Error) => void): { stop(): void };
  close(): void;
}

/**
 * Opens a line to the kcp of `adminKubeconfigPath` (context `root`, or the one given), credentials read once.
 *
 * @example
 * const kube = await openKube(kcp.adminKubeconfigPath);
 * const res = await kube.request('GET', '/clusters/root:ws-0/api/v1/namespaces/default/configmaps');
 */
export async function openKube(adminKubeconfigPath: string, context = 'root'): Promise<Kube> {
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfigPath);
  if (kc.getContextObject(context) !== null) kc.setCurrentContext(context);
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error(`${adminKubeconfigPath}: no current cluster`);
  const origin = new URL(server).origin;
  const base: RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(base);
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ca: base.ca, cert: base.cert, key: base.key });
  const auth = (base.headers as OutgoingHttpHeaders | undefined)?.Authorization;
  const headers = (extra: OutgoingHttpHeaders): OutgoingHttpHeaders => ({ Accept: 'application/json', ...(auth === undefined ? {} : { Authorization: auth }), ...extra });

  // A delete of a workspace's 100 outputs is one collection DELETE, which kcp deletes one object at
  // a time before it answers: ~1 s per object on a loaded 2-core machine.
  const silentMs = 300_000;
  const request = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeResponse> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const extra: OutgoingHttpHeaders = payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${origin}${path}`, { method, agent, headers: headers(extra), timeout: silentMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text) as unknown;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${silentMs / 1000} s`)));
      req.on('error', reject);
      req.end(payload);
    });
  };

  const watch = (path: string, onEvent: (e: WatchEvent) => void, onEnd: (err?: Error) => void): { stop(): void } => {
    const sep = path.includes('?') ? '&' : '?';
    // Its own agent: a watch holds its socket for its whole life.
    const req = httpsRequest(`${origin}${path}${sep}watch=1&allowWatchBookmarks=false`, { method: 'GET', ca: base.ca, cert: base.cert, key: base.key, headers: headers({}) }, (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        onEnd(new Error(`watch ${path}: HTTP ${res.statusCode ?? 0}`));
        res.resume();
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() !== '') onEvent(JSON.parse(line) as WatchEvent);
          nl = buf.indexOf('\n');
        }
      });
      res.on('end', () => { onEnd(); });
      res.on('error', (err) => { onEnd(err); });
    });
    req.on('error', (err) => { onEnd(err); });
    req.end();
    return { stop: () => req.destroy() };
  };

  return { request, watch, close: () => { agent.destroy(); } };
}

/**
 * Throws unless `res.status` is one of `ok`, naming what was attempted.
 *
 * @example
 * must(await kube.request('POST', path, body), 'create cm-1', 201);
 */
export function must(res: KubeResponse, what: string, ...ok: number[]): KubeResponse {
  if (!ok.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}
