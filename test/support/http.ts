// Minimal JSON-over-HTTPS for the harness: TLS and credentials come from a @kubernetes/client-node
// KubeConfig (CA, client cert, bearer token), so the server certificate is always verified.
import { request as httpsRequest } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** An absolute URL as is; otherwise a path appended to the server URL's own path (e.g. /clusters/root). */
export function resolveUrl(server: string, pathOrUrl: string): URL {
  if (/^https?:\/\//.test(pathOrUrl)) return new URL(pathOrUrl);
  const url = new URL(server);
  const q = pathOrUrl.indexOf('?');
  const path = q < 0 ? pathOrUrl : pathOrUrl.slice(0, q);
  url.pathname = `${url.pathname.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
  url.search = q < 0 ? '' : pathOrUrl.slice(q);
  return url;
}

export interface JsonResponse {
  readonly status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  readonly body: unknown;
  readonly text: string;
}

/**
 * Sends one request to `pathOrUrl` (relative to the KubeConfig's current server, or absolute)
 * with the KubeConfig's TLS settings and credentials. Never throws on an HTTP status.
 *
 * @example
 * const res = await requestJson(kc, 'GET', '/readyz');
 */
export async function requestJson(
  kc: KubeConfig,
  method: string,
  pathOrUrl: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<JsonResponse> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig has no current cluster');
  const url = resolveUrl(cluster.server, pathOrUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: OutgoingHttpHeaders = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = Buffer.byteLength(payload);
  }
  const opts: RequestOptions = { method, headers, timeout: timeoutMs };
  // Adds the CA, client certificate and Authorization header of the current context.
  await kc.applyToHTTPSOptions(opts);
  return new Promise<JsonResponse>((resolvePromise, reject) => {
    const req = httpsRequest(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text) as unknown;
        } catch {
          // not JSON (e.g. "ok" from /readyz)
        }
        resolvePromise({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url.href}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Reads `obj.a.b.c` from an unknown JSON value; undefined if any step is missing. */
export function field(obj: unknown, ...path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** `field` narrowed to a string. */
export function stringField(obj: unknown, ...path: readonly string[]): string | undefined {
  const v = field(obj, ...path);
  return typeof v === 'string' ? v : undefined;
}
