// The controller process of the kcp benchmarks (bench/kcp-scale.ts on a real kcp, bench/kcp-sim-
// scale.ts on kcp-sim): one APIExport provider and a no-op reconcile of every Widget, alone in its
// process so that its RSS, heap, CPU, event-loop delay and connections are its own. Two modes:
// - fleet (default): createFleet(apiExportProvider) + fleetWatch over shared informers + reconcile,
//   as bench:kcp has measured since its first version; done when KCP_EXPECT workspaces are engaged
//   and their Widgets reconciled (the count may also come by IPC: { type: 'expect' }).
// - sharding (KCP_REPLICA=<identity>): run(controller(...)) with replicas: { type: 'sharding' },
//   its Leases in the cluster of KCP_HOME_KUBECONFIG; the parent decides when the replicas
//   together are done, and asks for a snapshot ({ type: 'snapshot' }).
// Either way it sends per-workspace engaged/disengaged/first-reconcile times (gathered, one message
// per 200 ms), a progress message at most every 200 ms, and a snapshot (memory after forced GC, CPU,
// event-loop delay, sockets).
// Widgets are named w-<j> (j < 31): a workspace's reconciled Widgets are kept as bits of one number,
// so the bookkeeping adds a few bytes per workspace to the memory measured, not a set of keys.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import type { ClusterName, KubeObject, ObjectKey } from '../src/index.js';
import { clusterName, controller, done, resource, run } from '../src/index.js';
import { createClusterClient } from '../src/client/index.js';
import { E } from '../src/fp/index.js';
import { reconcile } from '../src/operators/index.js';
import { apiExportProvider } from '../src/providers/kcp/index.js';
import { createFleet, createInformers, fleetWatch } from '../src/streams/index.js';
import { connectionsTo } from '../test/support/connections.js';
import type { Widget } from '../test/support/kcp-apiexport.js';
import type { Mem, Progress, Snapshot, ToChild, ToParent } from './kcp-measure.js';
import { mem, now } from './kcp-measure.js';

const env = (k: string): string => process.env[k] ?? '';
const M = Number(env('BENCH_OBJECTS') || 10);
const send = (m: ToParent): void => void process.send?.(m);
// Per-workspace times (engaged, disengaged, first reconcile) go in one message per 200 ms: an IPC
// message each (20,000 at 10,000 workspaces) was the bench's own cost inside the event loop it measures.
let pending: ToParent[] = [];
const record = (m: ToParent): void => void pending.push(m);
const flush = (): void => {
  if (pending.length === 0) return;
  send({ type: 'batch', messages: pending });
  pending = [];
};
const widgets = resource<Widget>({ group: env('KCP_GROUP'), version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
const kubeconfig = (): { readonly yaml: string } => ({ yaml: readFileSync(env('KCP_PROVIDER_KUBECONFIG'), 'utf8') });
const provider = apiExportProvider({ management: kubeconfig, exportName: env('KCP_EXPORT') });
const replica = env('KCP_REPLICA');

let expected = Number(env('KCP_EXPECT') || Infinity);
const engaged = new Set<string>();
// Workspace → bit j set when w-j was reconciled while the workspace was engaged here.
const reconciledBits = new Map<string, number>();
let reconciled = 0;
const bitCount = (n: number): number => n.toString(2).replaceAll('0', '').length;

const delay = monitorEventLoopDelay({ resolution: 10 });
await new Promise((r) => setTimeout(r, 200));
const before: Mem = mem();
const cpu0 = process.cpuUsage();
const startedAt = now();
delay.enable();

let state = '';
let fencings = 0;
const snapshot = (): Snapshot => {
  const cpu = process.cpuUsage(cpu0);
  return {
    startedAt,
    at: now(),
    before,
    after: mem(),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    connections: connectionsTo(Number(env('KCP_PORT'))),
    engaged: engaged.size,
    reconciled,
    eventLoopDelayMs: { max: delay.max / 1e6, p99: delay.percentile(99) / 1e6, mean: delay.mean / 1e6 },
    ...(replica === '' ? {} : { fencings }),
  };
};
let finished = false;
const check = (): void => {
  if (replica !== '' || finished || engaged.size < expected || reconciled < expected * M) return;
  finished = true;
  finish();
};
/** Sends the final snapshot and exits (which writes a --cpu-prof profile); BENCH_HEAP_SNAPSHOT=<file> writes a heap snapshot first. */
function finish(): void {
  clearInterval(progress);
  delay.disable();
  flush();
  const figures = snapshot();
  if (env('BENCH_HEAP_SNAPSHOT') !== '') writeHeapSnapshot(`${env('BENCH_HEAP_SNAPSHOT')}.${replica || 'fleet'}.heapsnapshot`);
  process.send?.({ type: 'done', ...figures } satisfies ToParent, () => process.exit(0));
}
let last = '';
const progress = setInterval(() => {
  flush();
  const p: Progress = { type: 'progress', at: now(), engaged: engaged.size, reconciled, state };
  const key = `${p.engaged} ${p.reconciled} ${p.state}`;
  if (key !== last) send(p);
  last = key;
}, 200);
process.on('message', (m: ToChild) => {
  if (m.type === 'expect') {
    expected = m.workspaces;
    check();
  } else {
    finish();
  }
});

const onEngaged = (c: string): void => {
  engaged.add(c);
  record({ type: 'engaged', cluster: c, at: now() });
  check();
};
const onDisengaged = (c: string): void => {
  engaged.delete(c);
  reconciled -= bitCount(reconciledBits.get(c) ?? 0);
  reconciledBits.delete(c);
  record({ type: 'disengaged', cluster: c, at: now() });
};
const onReconcile = (c: ClusterName, name: string): void => {
  const j = Number(/^w-(\d+)$/.exec(name)?.[1] ?? NaN);
  if (!(j >= 0 && j < 31) || !engaged.has(c)) return;
  const bits = reconciledBits.get(c) ?? 0;
  if (bits === 0) record({ type: 'first', cluster: c, at: now() });
  if ((bits & (1 << j)) !== 0) return;
  reconciledBits.set(c, bits | (1 << j));
  reconciled++;
  check();
};

if (replica === '') {
  const fleet = createFleet(provider);
  const informers = createInformers();
  const lookup = (key: ObjectKey): KubeObject | undefined => {
    const c = fleet.get(key.cluster);
    return c === undefined ? undefined : informers.informer(c, widgets).store.get(key);
  };
  fleet.engagements.subscribe(({ cluster, lifetime }) => {
    onEngaged(cluster.name);
    lifetime.subscribe({
      complete: () => {
        onDisengaged(cluster.name);
      },
    });
  });
  fleetWatch(fleet, widgets, { informers })
    .pipe(
      reconcile(
        (req) => {
          onReconcile(req.cluster, req.key.name);
          return done();
        },
        { lookup, fleet, concurrency: 10 },
      ),
    )
    .subscribe();
} else {
  const home = createClusterClient(clusterName('home'), { file: env('KCP_HOME_KUBECONFIG') });
  if (E.isLeft(home)) throw new Error(home.left.message);
  const c = controller<Widget>({
    name: 'kcp-bench',
    provider,
    resource: widgets,
    reconcile: (req) => {
      onReconcile(req.cluster, req.key.name);
      return done();
    },
  });
  const h = await run(c, {
    logger: pino({ level: env('LOG_LEVEL') || 'warn' }),
    http: false,
    signals: false,
    replicas: { type: 'sharding', home: { name: clusterName('home'), client: home.right }, namespace: 'default', identity: replica },
  });
  h.fleet.engagements.subscribe(({ cluster, lifetime }) => {
    onEngaged(cluster.name);
    lifetime.subscribe({
      complete: () => {
        onDisengaged(cluster.name);
      },
    });
  });
  h.replica?.states.subscribe((s) => {
    if (s.type === 'fenced' && state !== 'fenced') fencings += 1;
    state = s.type === 'sharing' ? `sharing ${s.members.length} ${s.confirmed ? 'confirmed' : 'unconfirmed'}` : s.type;
  });
}
send({ type: 'ready', startedAt });
