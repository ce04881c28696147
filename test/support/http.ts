// The harness's JSON over HTTPS is envtest's (src/envtest/http.ts: the server certificate always
// verified, credentials from the kubeconfig), here taking the client-node KubeConfig the older
// tests hold.
import type { KubeConfig } from '@kubernetes/client-node';
import type { JsonResponse } from '../../src/envtest/http.js';
import { requestJson as envtestRequestJson } from '../../src/envtest/http.js';

export type { JsonResponse };
export { stringField } from '../../src/envtest/http.js';

/**
 * Sends one request to `pathOrUrl` (relative to the KubeConfig's current server, or absolute)
 * with the KubeConfig's TLS settings and credentials. Never throws on an HTTP status.
 *
 * @example
 * const res = await requestJson(kc, 'GET', '/readyz');
 */
export function requestJson(kc: KubeConfig, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', pathOrUrl: string, body?: unknown, timeoutMs = 10_000): Promise<JsonResponse> {
  return envtestRequestJson({ loaded: kc }, method, pathOrUrl, body, timeoutMs);
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
