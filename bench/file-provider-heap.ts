// What the file provider keeps per cluster: heap used (and external memory: Buffers) after forced
// GC, before and after ADD kubeconfig files are added to a directory the provider already watches
// with BASE files, each file one context with a CA and a token like the peer benchmark's
// per-workspace kubeconfigs (bench/peer/fleet-setup.ts: kcp's CA, a token, server
// https://…/clusters/<workspace>). A fleet is subscribed; per cluster = the delta / ADD.
// Modes (BENCH_MODE): `noprobe` (probe: false, nothing contacts a server: what discovery and the
// idle client keep), `probe` (a local HTTPS server answers each first-contact GET /version, so the
// credentials are read and a TLS connection made: what an engaged, used client keeps).
// BENCH_SNAPSHOT=1 writes a heap snapshot after, and classifies its strings (kubeconfig texts,
// CA base64 copies, tokens) per cluster; both snapshots are kept, to compare.
// Run: npm run bench:file-provider-heap  (node --expose-gc --import ./bench/register.ts bench/file-provider-heap.ts)
// Environment: BENCH_MODE (noprobe), BENCH_BASE (50: warms the code up, so that the delta is data, not JIT),
// BENCH_ADD (50), BENCH_SNAPSHOT (0; a snapshot moves the heap: its run's heap figures are not comparable).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeHeapSnapshot } from 'node:v8';
import { createFleet } from '../src/streams/fleet.js';
import { kubeconfigFileProvider } from '../src/providers/file/index.js';
import { eventually } from '../test/support/wait.js';

const MODE = process.env.BENCH_MODE === 'probe' ? 'probe' : 'noprobe';
const BASE = Number(process.env.BENCH_BASE ?? 50);
const ADD = Number(process.env.BENCH_ADD ?? 50);
const SNAPSHOT = process.env.BENCH_SNAPSHOT === '1';
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const dir = mkdtempSync(join(tmpdir(), 'rxfleet-bench-heap-'));
const kcDir = join(dir, 'kubeconfigs');
execFileSync('mkdir', ['-p', kcDir]);
// A CA and a server certificate for 127.0.0.1 signed by it (2048-bit RSA, as kcp's).
const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=bench-ca');
ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
ssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.crt', '-days', '2', '-extfile', 'ext.cnf');
const caData = readFileSync(join(dir, 'ca.crt')).toString('base64');
const token = 'bench-' + 'x'.repeat(26);

const server = createSecureServer({ key: readFileSync(join(dir, 'srv.key')), cert: readFileSync(join(dir, 'srv.crt')), allowHTTP1: true }, (_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"major":"1","minor":"36","gitVersion":"v1.36.3"}');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;

interface Snap {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** A workspace's kubeconfig as the peer benchmark writes it (client-node's exportConfig, pretty JSON, the context renamed). */
function kubeconfig(name: string): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: `https://127.0.0.1:${port}/clusters/${name}`, 'certificate-authority-data': caData, 'insecure-skip-tls-verify': false } }],
    users: [{ name: 'kcp-admin', user: { token } }],
    contexts: [{ name, context: { cluster: name, user: 'kcp-admin' } }],
    'current-context': name,
  };
  return JSON.stringify(doc, null, 2);
}
const put = (name: string): void => {
  const file = join(kcDir, `${name}.kubeconfig`);
  writeFileSync(`${file}.tmp`, kubeconfig(name));
  renameSync(`${file}.tmp`, file);
};

const settle = async (): Promise<{ heap: number; external: number }> => {
  await sleep(300);
  for (let i = 0; i < 4; i++) {
    gc();
    await sleep(20);
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
};

for (let i = 0; i < BASE; i++) put(`base-${i}`);
const fleet = createFleet(kubeconfigFileProvider({ paths: [kcDir], probe: MODE === 'probe', rescanIntervalMs: 1_000, debounceMs: 50 }));
let engaged = 0;
const sub = fleet.engagements.subscribe(() => void (engaged += 1));
const skips: string[] = [];
fleet.reports.subscribe((r) => {
  if (r.type === 'skipped' || r.type === 'error' || r.type === 'waiting') skips.push(`${r.type}: ${'reason' in r ? r.reason : ''}`);
});
const until = (n: number): Promise<true> =>
  eventually(`${n} engaged`, () => engaged >= n, { timeoutMs: 60_000, context: () => `only ${engaged} engaged: ${skips.slice(0, 3).join('; ')}` });
await until(BASE);
// Two rescans, so that every lazy structure of a steady provider exists before the baseline.
await sleep(2_200);
const before = await settle();
if (SNAPSHOT) writeHeapSnapshot(join(dir, 'before.heapsnapshot'));
for (let i = 0; i < ADD; i++) put(`ws-${i}`);
await until(BASE + ADD);
await sleep(2_200);
const after = await settle();
const kib = (b: number): string => (b / 1024).toFixed(2);
const heapPer = (after.heap - before.heap) / ADD;
const extPer = (after.external - before.external) / ADD;
console.log(`mode ${MODE}, ${BASE} + ${ADD} files of ${kubeconfig('ws-0').length} bytes (CA base64 ${caData.length} chars), ${engaged} engaged, ${skips.length} problem reports`);
console.log(`heap used: ${kib(before.heap)} KiB -> ${kib(after.heap)} KiB: ${kib(heapPer)} KiB per cluster; external ${kib(extPer)} KiB per cluster`);

if (SNAPSHOT) {
  const file = writeHeapSnapshot(join(dir, 'after.heapsnapshot'));
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snap;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [t, n, s] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const sums = new Map<string, { count: number; bytes: number }>();
  const add = (k: string, bytes: number): void => {
    const e = sums.get(k) ?? { count: 0, bytes: 0 };
    e.count += 1;
    e.bytes += bytes;
    sums.set(k, e);
  };
  const caPrefix = caData.slice(0, 64);
  const caPem = Buffer.from(caData, 'base64').toString('utf8');
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + t] ?? 0] ?? '';
    if (type !== 'string' && type !== 'concatenated string' && type !== 'sliced string') continue;
    const name = snap.strings[snap.nodes[i + n] ?? 0] ?? '';
    const size = snap.nodes[i + s] ?? 0;
    if (name.includes('"kind":"Config"') || name.includes('"kind": "Config"')) add(`kubeconfig text (${type})`, size);
    else if (name.startsWith(caPrefix)) add(`CA base64 (${type})`, size);
    else if (name === caPem) add(`CA PEM text (${type})`, size);
    else if (name === token || name === `Bearer ${token}`) add(`token (${name.startsWith('Bearer') ? 'header' : 'raw'})`, size);
  }
  for (const [k, v] of sums) console.log(`  ${k}: ${v.count} strings, ${kib(v.bytes)} KiB (${(v.count / (BASE + ADD)).toFixed(2)} per cluster, ${kib(v.bytes / (BASE + ADD))} KiB per cluster)`);
  console.log(`  snapshots: ${dir}/before.heapsnapshot, ${file}`);
}
sub.unsubscribe();
server.close();
if (!SNAPSHOT) rmSync(dir, { recursive: true, force: true });
process.exit(0);
