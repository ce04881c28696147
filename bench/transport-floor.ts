// What one request costs the client's CPU, rxfleet's client against Node's own node:http2 (the
// floor no Node controller goes under: node:https and undici, @kubernetes/client-node's client,
// are measured beside it), at a server's pace. Issue 14 asks for CPU per object ≤ the
// Go peer's; this shows how much of rxfleet's figure is Node's per-request cost, and how that cost
// grows when answers come one at a time (each its own event-loop turn) instead of in bursts.
//
// A Node HTTP/2 server (TLS, HTTP/1.1 allowed, a child process) answers every PATCH with a ~1.3 KB
// ConfigMap after `delay` ms; each client (a fresh child process, so no client shares a heap or
// a JIT with another) sends 10 at a time: a warm-up, then N measured, and reports its CPU
// (user + system) per request. Modes alternate, median of BENCH_ROUNDS.
//
//   npm run build && node --import ./bench/register.ts bench/transport-floor.ts
//   BENCH_REQUESTS=2000 BENCH_DELAYS=0,50 BENCH_ROUNDS=3
//   BENCH_CLIENT_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'   Node flags for the clients
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeServingCerts, writeTokenKubeconfig } from '../src/envtest/certs.js';
import { median } from './support.js';

const SELF = fileURLToPath(import.meta.url);
const CONCURRENCY = 10;
const answer = JSON.stringify({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x-out', namespace: 'default', resourceVersion: '12345', uid: 'u'.repeat(36), managedFields: [{ manager: 'bench', operation: 'Apply', fieldsV1: { 'f:data': { 'f:k': {} } } }] },
  data: { k: 'v'.repeat(900) },
});
const object = { metadata: { name: 'x-out', namespace: 'default' }, data: { k: 'v'.repeat(900) } };
const path = '/api/v1/namespaces/default/configmaps/x-out?fieldManager=bench&force=true';
/** What the bare clients send: the same apply, with the headers rxfleet's client sends. */
const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', ...object });
const headers = { 'content-type': 'application/apply-patch+yaml', authorization: 'Bearer t', accept: 'application/json' };

/** Reads a response stream to its end and parses it, as every client here does with its answer. */
function parsedBody(res: NodeJS.ReadableStream, resolve: () => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    resolve();
  });
}

type Mode = 'node:http2' | 'node:https' | 'undici' | 'rxfleet HTTP/2' | 'rxfleet HTTP/1.1';

async function serve(dir: string, delayMs: number): Promise<void> {
  const s = http2.createSecureServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')), allowHTTP1: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer), delayMs);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const addr = s.address();
  process.send?.(typeof addr === 'object' && addr !== null ? addr.port : 0);
}

async function measure(one: () => Promise<void>, n: number): Promise<{ cpuUs: number; perS: number }> {
  const loop = async (count: number): Promise<void> => {
    let i = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (i++ < count) await one();
    }));
  };
  await loop(Math.min(500, n));
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await loop(n);
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / n, perS: n / ((performance.now() - t0) / 1000) };
}

async function client(mode: Mode, dir: string, port: number, n: number): Promise<void> {
  const server = `https://127.0.0.1:${port}`;
  if (mode === 'node:http2') {
    const session = http2.connect(server, { ca: readFileSync(join(dir, 'ca.crt')) });
    const one = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const s = session.request({ ':method': 'PATCH', ':path': path, ...headers });
        parsedBody(s, resolve);
        s.on('error', reject);
        s.end(body);
      });
    process.send?.(await measure(one, n));
    session.close();
    return;
  }
  if (mode === 'node:https') {
    // HTTP/1.1 with keep-alive, one socket per request in flight: Node's other built-in client.
    const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: readFileSync(join(dir, 'ca.crt')) });
    const one = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const q = https.request(`${server}${path}`, { method: 'PATCH', agent, headers }, (res) => {
          parsedBody(res, resolve);
        });
        q.on('error', reject);
        q.end(body);
      });
    process.send?.(await measure(one, n));
    agent.destroy();
    return;
  }
  if (mode === 'undici') {
    // The HTTP client @kubernetes/client-node 2 sends with (installed with it): one HTTP/1.1
    // connection, CONCURRENCY requests pipelined on it.
    const { Pool } = await import('undici');
    const pool = new Pool(server, { connections: 1, pipelining: CONCURRENCY, connect: { ca: readFileSync(join(dir, 'ca.crt')) } });
    const one = async (): Promise<void> => {
      const r = await pool.request({ method: 'PATCH', path, headers, body });
      JSON.parse(await r.body.text());
    };
    process.send?.(await measure(one, n));
    await pool.close();
    return;
  }
  // The built package, as a deployed controller runs it.
  const { createClusterClient } = (await import(join(SELF, '..', '..', 'dist', 'client', 'index.js'))) as typeof import('../src/client/index.js');
  const { clusterName, configMaps } = (await import(join(SELF, '..', '..', 'dist', 'index.js'))) as typeof import('../src/index.js');
  const kubeconfig = join(dir, 'client.kubeconfig');
  writeTokenKubeconfig(kubeconfig, server, join(dir, 'ca.crt'), 'bench', 't');
  const c = createClusterClient(clusterName('floor'), { file: kubeconfig }, { http2: mode === 'rxfleet HTTP/2' });
  if (c._tag === 'Left') throw new Error(c.left.message);
  const one = async (): Promise<void> => {
    const r = await c.right.apply(configMaps, object, { fieldManager: 'bench', force: true });
    if (r._tag === 'Left') throw new Error(r.left.message);
  };
  process.send?.(await measure(one, n));
  c.right.close();
}

function child(args: readonly string[], nodeArgs: readonly string[] = []): { proc: ChildProcess; first: Promise<unknown> } {
  const proc = fork(SELF, args, { execArgv: [...nodeArgs, '--import', join(SELF, '..', 'register.ts')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const first = new Promise((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => { reject(new Error(`${args.join(' ')} exited (${String(code)}) before answering`)); });
  });
  return { proc, first };
}

async function driver(): Promise<void> {
  const n = Number(process.env.BENCH_REQUESTS ?? 2000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const delays = (process.env.BENCH_DELAYS ?? '0,50').split(',').map(Number);
  const modes: Mode[] = ['node:http2', 'node:https', 'undici', 'rxfleet HTTP/2', 'rxfleet HTTP/1.1'];
  const clientNodeArgs = (process.env.BENCH_CLIENT_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-floor-'));
  makeServingCerts(dir);
  console.log(`| answer delay | ${modes.map((m) => `${m}: CPU µs per request (req/s)`).join(' | ')} | rxfleet HTTP/2 ÷ node:http2 |`);
  console.log(`|---:|${modes.map(() => '---:').join('|')}|---:|`);
  for (const delay of delays) {
    const server = child(['serve', dir, String(delay)]);
    const port = (await server.first) as number;
    const figures = new Map<Mode, { cpuUs: number; perS: number }[]>(modes.map((m) => [m, []]));
    for (let r = 0; r < rounds; r++) {
      for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
        const c = child(['client', mode, dir, String(port), String(n)], clientNodeArgs);
        figures.get(mode)?.push((await c.first) as { cpuUs: number; perS: number });
        await new Promise((resolve) => c.proc.once('exit', resolve));
      }
    }
    server.proc.kill();
    const mid = (m: Mode, k: 'cpuUs' | 'perS'): number => median((figures.get(m) ?? []).map((f) => f[k]));
    const cells = modes.map((m) => `${mid(m, 'cpuUs').toFixed(0)} (${mid(m, 'perS').toFixed(0)})`);
    console.log(`| ${delay} ms | ${cells.join(' | ')} | ${(mid('rxfleet HTTP/2', 'cpuUs') / mid('node:http2', 'cpuUs')).toFixed(2)}× |`);
  }
  console.log(`\n${n} requests per client, ${CONCURRENCY} at a time, median of ${rounds}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${navigator.hardwareConcurrency} cores`);
}

const [role, ...rest] = process.argv.slice(2);
if (role === 'serve') await serve(rest[0] ?? '', Number(rest[1]));
else if (role === 'client') await client(rest[0] as Mode, rest[1] ?? '', Number(rest[2]), Number(rest[3]));
else await driver();
