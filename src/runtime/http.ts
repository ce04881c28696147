// The probe and metrics endpoint of a running controller: /healthz, /readyz and /metrics on the
// loopback interface by default, so nothing is exposed beyond the host unless asked for.
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { HealthView } from './health.js';

// Not `import`: an ESM import of node:http reads every export, and three are getters that load
// Node's bundled undici (~2.5 MiB of rxfleet's import) — see src/client/http1-carrier.ts.
const { createServer } = process.getBuiltinModule('node:http');

/**
 * Where the endpoint listens. `port: 0` picks a free port (see {@link ProbeServer.url}).
 *
 * @example
 * ```ts
 * const opts: ProbeServerOptions = { host: '127.0.0.1', port: 8081 };
 * ```
 */
export interface ProbeServerOptions {
  /** Default `127.0.0.1`. Use `0.0.0.0` in a Pod so the kubelet can reach the probes. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
}

/**
 * A listening probe server.
 *
 * @example
 * ```ts
 * const res = await fetch(`${server.url}/readyz`);
 * ```
 */
export interface ProbeServer {
  /** `http://host:port`. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

function readyText(health: HealthView): string {
  const r = health.report();
  const d = r.discovery;
  const lines = [
    `phase: ${r.phase}`,
    ...(r.notReady === undefined ? [] : [`why: ${r.notReady}`]),
    `discovery: first pass ${d.firstPassDone ? 'done' : 'pending'}, ${d.clusters} cluster(s) discovered, at least ${d.minClusters} needed`,
    ...r.clusters.map((c) => `cluster ${c.cluster}: ${c.state}${c.reason === undefined ? '' : ` (${c.reason})`}`),
    ...r.providers.map((p) => `provider ${p.provider}: ${p.type} ${p.subject} (${p.reason})`),
  ];
  return `${r.ready ? 'ok' : 'not ready'}\n${lines.join('\n')}\n`;
}

/**
 * Starts the probe server: `GET /healthz` (200 while the pipeline is alive), `GET /readyz` (200
 * once ready, else 503; the body lists each cluster's state and the provider's current problems) and `GET /metrics` (Prometheus text).
 *
 * @example
 * ```ts
 * const server = await startProbeServer(handle.health, metrics.registry, { port: 0 });
 * console.log(`probes on ${server.url}`);
 * await server.close();
 * ```
 * @param health - what /healthz and /readyz report.
 * @param registry - what /metrics serves: a registry, or anything that writes an exposition like one.
 * @param options - host and port.
 * @returns the listening server; rejects when the port cannot be bound (e.g. EADDRINUSE).
 */
export async function startProbeServer(health: HealthView, registry: Pick<Registry, 'metrics' | 'contentType'>, options: ProbeServerOptions = {}): Promise<ProbeServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'method not allowed\n');
    } else if (path === '/healthz' || path === '/livez') {
      if (health.report().alive) send(200, 'ok\n');
      else send(503, 'pipeline failed\n');
    } else if (path === '/readyz') {
      send(health.report().ready ? 200 : 503, readyText(health));
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => {
          send(200, text, registry.contentType);
        },
        (err: unknown) => {
          send(500, `metrics failed: ${err instanceof Error ? err.message : String(err)}\n`);
        },
      );
    } else {
      send(404, 'not found: try /healthz, /readyz or /metrics\n');
    }
  });
  // A slow or idle scrape connection must not hold the process open at shutdown.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
