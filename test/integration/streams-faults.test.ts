// Fault tests of the streams layer against PRIVATE servers, a kube-apiserver and a kcp (so killing
// or pausing them disturbs no other test): SIGKILL + restart mid-stream, a real 410 forced by etcd
// compaction, and a SIGSTOP longer than the inactivity timeout. Each asserts the store ends equal to
// a fresh list.
import { BehaviorSubject, catchError, defer, firstValueFrom, NEVER, of, switchMap, take, throwError, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { kcpClient } from '../../src/providers/kcp/credentials.js';
import type { Backoff, WatchEvent, WatchHealth, ListerWatcher } from '../../src/streams/index.js';
import { clusterListerWatcher, createInformers } from '../../src/streams/index.js';
import { startKcp } from '../support/kcp.js';
import type { ProcessControls } from '../support/process.js';
import { startKubeApiserver } from '../support/kube-apiserver.js';
import { clusterFrom, configMap, pool, storeMatchesServer } from './streams-support.js';
import { eventually, retrying } from '../support/wait.js';

// Short timings keep the file fast; the rules are the same as the defaults.
const quick: Backoff = { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 120_000 };

/** Counts deletes per object name, to prove no delete is lost or delivered twice. */
function deleteCounter(): { onEvent: (ev: WatchEvent<ConfigMap>) => void; seen: Set<string>; deletes: Map<string, number> } {
  const seen = new Set<string>();
  const deletes = new Map<string, number>();
  return {
    seen,
    deletes,
    onEvent: (ev) => {
      if (ev.type === 'applied' || ev.type === 'initApply') seen.add(ev.object.metadata.name ?? '');
      if (ev.type === 'deleted') deletes.set(ev.object.metadata.name ?? '', (deletes.get(ev.object.metadata.name ?? '') ?? 0) + 1);
    },
  };
}

/** A private server for one fault test file: its cluster, a namespace to work in, and its fault controls. */
interface PrivateServer {
  readonly cluster: Cluster;
  readonly namespace: string;
  /** Error tags a writer retries while the server comes back, beyond the transient ones. */
  readonly warmupErrors: readonly string[];
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): Promise<void>;
  resume(): void;
  stop(): Promise<void>;
}

/** The fault controls of a harness handle, bound to it. */
function controlsOf(h: ProcessControls & { restart(): Promise<void>; stop(): Promise<void> }): Omit<PrivateServer, 'cluster' | 'namespace' | 'warmupErrors'> {
  return {
    kill: () => h.kill(),
    restart: () => h.restart(),
    pause: () => h.pause(),
    resume: () => {
      h.resume();
    },
    stop: () => h.stop(),
  };
}

// No watch cache: watches read etcd directly, so a compacted resourceVersion answers 410 at once.
const faultFlags = ['--watch-cache=false', '--etcd-compaction-interval=2s'];

const servers: readonly { readonly name: string; start(): Promise<PrivateServer> }[] = [
  {
    name: 'kube-apiserver',
    async start() {
      const kas = await startKubeApiserver({ extraArgs: faultFlags });
      const cluster = clusterFrom('private-kas', kas.kubeconfigYaml('admin'));
      const namespace = await kas.createNamespace('faults');
      return {
        cluster,
        namespace,
        warmupErrors: [],
        ...controlsOf(kas),
      };
    },
  },
  {
    name: 'kcp',
    async start() {
      const kcp = await startKcp({ extraArgs: faultFlags });
      const ws = await kcp.createWorkspace();
      const name = clusterName(ws.path);
      // kcp issues a new admin token at every start: the client re-reads the kubeconfig after a 401.
      const client = kcpClient(name, ws.kubeConfig().getCurrentCluster()?.server ?? '', () => ({ loaded: ws.kubeConfig() }));
      if (E.isLeft(client)) throw new Error(client.left.message);
      return {
        cluster: { name, client: client.right },
        namespace: 'default',
        // Right after a start, kcp refuses even its admin (403) until its authorization caches warm.
        warmupErrors: ['Forbidden'],
        ...controlsOf(kcp),
      };
    },
  },
];

describe.each(servers)('streams under faults ($name)', (server) => {
  let srv: PrivateServer;
  let cluster: Cluster;
  let namespace: string;

  beforeAll(async () => {
    srv = await server.start();
    ({ cluster, namespace } = srv);
  });
  afterAll(async () => {
    cluster.client.close();
    await srv.stop();
  });

  it('should recover from SIGKILL + restart mid-stream with no delete lost or duplicated', async () => {
    const informers = createInformers({ backoff: quick, authBackoff: quick });
    const inf = informers.informer(cluster, configMaps, { namespace, labelSelector: 'fault=kill' });
    const counter = deleteCounter();
    const sub = inf.events.subscribe(counter.onEvent);
    try {
      const names = Array.from({ length: 60 }, (_, i) => `k-${i}`);
      // Writes refused (the server down or coming back), and writer steps done: what the kill waits for.
      let refused = 0;
      let steps = 0;
      const create = async (name: string): Promise<void> => {
        // A create retried across the kill may find the object already made: that is success.
        await retrying(`create ${name}`, async () => {
          const r = await cluster.client.create(configMaps, { metadata: { name, namespace, labels: { fault: 'kill' } } });
          if (E.isLeft(r) && r.left.type !== 'AlreadyExists') refused += 1;
          return E.isLeft(r) && r.left.type === 'AlreadyExists' ? E.right(undefined) : r;
        }, { timeoutMs: 60_000, alsoRetry: srv.warmupErrors });
      };
      const remove = async (name: string): Promise<void> => {
        // Likewise a retried delete may find the object already gone.
        await retrying(`delete ${name}`, async () => {
          const r = await cluster.client.delete(configMaps, name, { namespace });
          if (E.isLeft(r) && r.left.type !== 'NotFound') refused += 1;
          return E.isLeft(r) && r.left.type === 'NotFound' ? E.right(undefined) : r;
        }, { timeoutMs: 60_000, alsoRetry: srv.warmupErrors });
      };
      await pool(names.slice(0, 30), 8, create);
      await eventually('sync', () => (inf.store.synced(cluster.name) ? true : undefined));
      // Writers keep going while the server dies and comes back.
      const writers = (async () => {
        for (let i = 30; i < 60; i++) {
          await create(names[i] ?? '');
          await remove(names[i - 30] ?? '');
          steps += 1;
        }
      })();
      // Settled at once so a writer failing during the restart is reported by this test, not as unhandled.
      const writersDone = writers.then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
      // Killed mid-stream: after the writers' first steps, and restarted once a write has met the
      // dead server (so the writers are still going when it dies).
      await eventually('the writers under way', () => steps >= 2, { timeoutMs: 30_000 });
      await srv.kill();
      await eventually('a write refused by the dead server', () => refused >= 1, { timeoutMs: 30_000 });
      await srv.restart();
      const writerError = await writersDone;
      if (writerError !== undefined) throw writerError;
      await storeMatchesServer(inf.store, cluster.client, namespace, 60_000, 'fault=kill');
      for (const [name, n] of counter.deletes) expect(n, `deletes of ${name}`).toBe(1);
      for (const name of names.slice(0, 30)) expect(counter.deletes.get(name), `delete of ${name}`).toBe(1);
    } finally {
      sub.unsubscribe();
    }
  });

  it('should relist after a real 410 (etcd compaction) and deliver exactly the deletes of the gap', async () => {
    // A gate in front of the watch: closing it cuts the open stream; a watch asked for while it is
    // closed waits for it to reopen. That holds our resourceVersion still while etcd compacts past it.
    const open = new BehaviorSubject(true);
    const inner = clusterListerWatcher(cluster, configMaps);
    const gated: ListerWatcher<ConfigMap> = {
      list: (o) => inner.list(o),
      watch: (o) =>
        defer(() => {
          const startedOpen = open.value;
          return open.pipe(
            switchMap((v) => (v ? inner.watch(o) : startedOpen ? throwError(() => kubeError('Transient', cluster.name, 'cut by the test')) : NEVER)),
          );
        }),
    };
    const informers = createInformers({ backoff: quick, streamingList: false, listerWatcherFor: () => gated as never });
    const inf = informers.informer(cluster, configMaps, { namespace, labelSelector: 'fault=gone' });
    const counter = deleteCounter();
    let health: WatchHealth | undefined;
    const hsub = inf.health.subscribe((h) => (health = h));
    const sub = inf.events.subscribe(counter.onEvent);
    try {
      const names = Array.from({ length: 20 }, (_, i) => `g-${i}`);
      await pool(names, 8, async (name) => {
        await retrying(`create ${name}`, () => cluster.client.create(configMaps, { metadata: { name, namespace, labels: { fault: 'gone' } } }));
      });
      await eventually('all 20 cached', () => (inf.store.synced(cluster.name) && inf.store.size === 20 ? true : undefined));
      const held = await retrying('list', () => cluster.client.list(configMaps, { namespace, labelSelector: 'fault=gone', limit: 1 }));
      const oldRv = held.metadata.resourceVersion ?? '';
      open.next(false);
      await pool(names.slice(0, 10), 4, async (name) => {
        await retrying(`delete ${name}`, () => cluster.client.delete(configMaps, name, { namespace }));
      });
      // Wait (bounded) until the server itself answers 410 for that resourceVersion, writing so compaction has revisions to pass.
      let i = 0;
      await eventually(
        `etcd to compact past resourceVersion ${oldRv}`,
        async () => {
          await retrying('noise', () => cluster.client.create(configMaps, configMap(`noise-${i++}`, namespace)));
          const first = await firstValueFrom(
            cluster.client.watch(configMaps, { namespace, resourceVersion: oldRv, labelSelector: 'fault=gone' }).pipe(
              take(1),
              timeout({ first: 2_000, with: () => of('no answer') }),
              catchError((e: unknown) => of(JSON.stringify(e))),
            ),
          );
          return first.includes('410') || first.includes('Gone') || first.includes('Expired') ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      const relistsBefore = health?.relists ?? 0;
      open.next(true);
      await storeMatchesServer(inf.store, cluster.client, namespace, 60_000, 'fault=gone');
      await eventually('a relist in health', () => ((health?.relists ?? 0) > relistsBefore ? true : undefined), { timeoutMs: 30_000 });
      expect(health?.lastError?.type).toBe('Gone');
      for (const name of names.slice(0, 10)) expect(counter.deletes.get(name), `delete of ${name}`).toBe(1);
      for (const name of names.slice(10)) expect(counter.deletes.get(name), `no delete of ${name}`).toBeUndefined();
      expect(inf.store.size).toBe(10);
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
    }
  });

  it('should restart a watch silenced by SIGSTOP after the inactivity timeout and recover after SIGCONT', async () => {
    const informers = createInformers({ backoff: quick, inactivityTimeoutMs: 3_000 });
    const inf = informers.informer(cluster, configMaps, { namespace, labelSelector: 'fault=stop' });
    const health: WatchHealth[] = [];
    const hsub = inf.health.subscribe((h) => health.push(h));
    const sub = inf.events.subscribe();
    try {
      await retrying('create s-0', () => cluster.client.create(configMaps, { metadata: { name: 's-0', namespace, labels: { fault: 'stop' } } }));
      await eventually('s-0 cached', () => (inf.store.size === 1 ? true : undefined));
      await srv.pause();
      try {
        await eventually('the inactivity timeout to fire', () => (health.some((h) => h.lastError?.type === 'Timeout') ? true : undefined), { timeoutMs: 30_000 });
      } finally {
        srv.resume();
      }
      await retrying('create s-1', () => cluster.client.create(configMaps, { metadata: { name: 's-1', namespace, labels: { fault: 'stop' } } }));
      await eventually('s-1 cached without any user action', () => (inf.store.size === 2 ? true : undefined), { timeoutMs: 60_000 });
      expect(health.at(-1)?.state).toBe('connected');
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
    }
  });
});
