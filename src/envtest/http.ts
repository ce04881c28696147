// Minimal JSON over HTTPS for envtest's own probes and set-up calls (readiness, namespaces,
// workspaces): the server, CA and credentials come from a kubeconfig through rxfleet's own loader,
// so the server certificate is always verified and no Kubernetes client library is loaded.
import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import { clusterName } from '../core/cluster.js';
import { isLeft } from '../core/either.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import type { KubeconfigSource } from '../client/kubeconfig.js';

/**
 * An answer of {@link requestJson}.
 *
 * @example
 * ```ts
 * const res: JsonResponse = { status: 200, body: 'ok', text: 'ok' };
 * ```
 */
export interface JsonResponse {
  readonly status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  readonly body: unknown;
  readonly text: string;
}

function pem(data: string | undefined, file: string | undefined): Buffer | undefined {
  if (data !== undefined) return Buffer.from(data, 'base64');
  return file === undefined ? undefined : readFileSync(file);
}

/**
 * Sends one request to `pathOrUrl` (appended to the kubeconfig's server path, or absolute) with
 * the kubeconfig's CA and credentials (bearer token or client certificate); a PATCH body is sent as
 * a JSON merge patch. Never throws on an HTTP status.
 *
 * @example
 * ```ts
 * const res = await requestJson({ file: '/tmp/rxfleet-kas-x/admin.kubeconfig' }, 'GET', '/readyz');
 * ```
 */
export async function requestJson(
  source: KubeconfigSource,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  pathOrUrl: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<JsonResponse> {
  const loaded = loadKubeconfig(clusterName('envtest'), source);
  if (isLeft(loaded)) throw new Error(loaded.left.message);
  const { cluster, user } = loaded.right;
  const url = resolveUrl(cluster.server, pathOrUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: OutgoingHttpHeaders = { Accept: 'application/json' };
  if (payload !== undefined) {
    // A PATCH body is a JSON merge patch (Kubernetes refuses application/json for PATCH).
    headers['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    headers['Content-Length'] = Buffer.byteLength(payload);
  }
  const token = user.token ?? (user.tokenFile === undefined ? undefined : readFileSync(user.tokenFile, 'utf8').trim());
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const ca = pem(cluster.caData, cluster.caFile);
  const cert = pem(user.certData, user.certFile);
  const key = pem(user.keyData, user.keyFile);
  const opts: RequestOptions = {
    method,
    headers,
    timeout: timeoutMs,
    rejectUnauthorized: !cluster.skipTLSVerify,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(cluster.tlsServerName === undefined ? {} : { servername: cluster.tlsServerName }),
  };
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

function resolveUrl(server: string, pathOrUrl: string): URL {
  if (/^https?:\/\//.test(pathOrUrl)) return new URL(pathOrUrl);
  const url = new URL(server);
  const q = pathOrUrl.indexOf('?');
  const path = q < 0 ? pathOrUrl : pathOrUrl.slice(0, q);
  url.pathname = `${url.pathname.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
  url.search = q < 0 ? '' : pathOrUrl.slice(q);
  return url;
}

/**
 * Reads the string at `obj.a.b.c` of an unknown JSON value; undefined if any step is missing.
 *
 * @example
 * ```ts
 * const phase = stringField({ status: { phase: 'Ready' } }, 'status', 'phase'); // 'Ready'
 * ```
 */
export function stringField(obj: unknown, ...path: readonly string[]): string | undefined {
  let cur: unknown = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return typeof cur === 'string' ? cur : undefined;
}

/**
 * Why a `/readyz` answer is not 200, in one line: the names of its failed checks (`[-]` lines),
 * else the end of the body.
 *
 * @example
 * ```ts
 * readyzProblem(500, '[+]ping ok\n[-]poststarthook/kcp-start-informers failed: not finished\nreadyz check failed');
 * // '/readyz 500: not ready: poststarthook/kcp-start-informers'
 * ```
 */
export function readyzProblem(status: number, text: string): string {
  const failed = text
    .split('\n')
    .filter((l) => l.startsWith('[-]'))
    .map((l) => l.slice(3).replace(/ failed.*$/, ''));
  return `/readyz ${status}: ${failed.length > 0 ? `not ready: ${failed.join(', ')}` : text.slice(-300)}`;
}
