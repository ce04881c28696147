// The state of one simulated kcp shard: objects of many logical clusters per resource, one
// resourceVersion counter for the shard (as etcd's revision), a bounded history per resource for
// watches that resume (a resourceVersion older than the history is answered 410 Gone), and the
// watchers each change is pushed to, indexed by resource and logical cluster.
import type { Selectable } from './selectors.js';

/** A resource kcp-sim serves. */
export interface SimResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** One stored version of an object: what selectors see, and its JSON as served. */
export interface Entry extends Selectable {
  readonly cluster: string;
  readonly rv: number;
  /** Creation order within its resource: the order of lists and the position of continue tokens. */
  readonly seq: number;
  readonly json: string;
}

/** A change of one object, as a watch sends it. */
export interface Change {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly entry: Entry;
}

/** Receives the changes of one resource in one logical cluster, or in all (`*`). */
export type Sink = (change: Change) => void;

/** The objects, order and history of one resource. */
export class Table {
  readonly objects = new Map<string, Entry>();
  // Keys in creation order (parallel arrays; a key whose entry has another seq is stale).
  private keys: string[] = [];
  private seqs: number[] = [];
  private stale = 0;
  private readonly history: Change[] = [];
  private head = 0;
  /** Changes with rv > floor are all in the history; a watch from an older rv gets 410. */
  floor = 0;
  readonly sinks = new Map<string, Set<Sink>>();

  readonly resource: SimResource;
  private readonly capacity: number;

  constructor(resource: SimResource, capacity: number) {
    this.resource = resource;
    this.capacity = capacity;
  }

  /** Entries in creation order with seq > after, at most `limit`; and whether more follow. */
  page(after: number, limit: number, keep: (e: Entry) => boolean): { readonly items: Entry[]; readonly more: boolean } {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.seqs[mid] ?? 0) <= after) lo = mid + 1;
      else hi = mid;
    }
    const items: Entry[] = [];
    for (let i = lo; i < this.keys.length; i++) {
      const e = this.objects.get(this.keys[i] ?? '');
      if (e === undefined || e.seq !== this.seqs[i] || !keep(e)) continue;
      if (items.length === limit) return { items, more: true };
      items.push(e);
    }
    return { items, more: false };
  }

  /** Records a change: the object map, the order, the history (evicting the oldest) and the sinks. */
  record(key: string, change: Change): void {
    const before = this.objects.get(key);
    if (change.type === 'DELETED') {
      this.objects.delete(key);
      this.stale++;
    } else {
      this.objects.set(key, change.entry);
      if (before === undefined) {
        this.keys.push(key);
        this.seqs.push(change.entry.seq);
      }
    }
    if (this.stale > 1024 && this.stale > this.keys.length / 2) this.compactOrder();
    if (this.history.length < this.capacity) this.history.push(change);
    else {
      this.floor = this.history[this.head]?.entry.rv ?? this.floor;
      this.history[this.head] = change;
      this.head = (this.head + 1) % this.capacity;
    }
    for (const scope of ['*', change.entry.cluster]) for (const sink of this.sinks.get(scope) ?? []) sink(change);
  }

  /** The changes after `rv`, oldest first; undefined when some of them are no longer kept (410). */
  since(rv: number): Change[] | undefined {
    if (rv < this.floor) return undefined;
    const n = this.history.length;
    const out: Change[] = [];
    for (let i = 0; i < n; i++) {
      const c = this.history[(this.head + i) % n];
      if (c !== undefined && c.entry.rv > rv) out.push(c);
    }
    return out;
  }

  /** Forgets the history up to `rv`, as etcd's compaction does. */
  compact(rv: number): void {
    this.history.length = 0;
    this.head = 0;
    this.floor = rv;
  }

  private compactOrder(): void {
    const keys: string[] = [];
    const seqs: number[] = [];
    this.keys.forEach((k, i) => {
      if (this.objects.get(k)?.seq === this.seqs[i]) {
        keys.push(k);
        seqs.push(this.seqs[i] ?? 0);
      }
    });
    this.keys = keys;
    this.seqs = seqs;
    this.stale = 0;
  }
}

/** The key of a resource in the store: its group and plural (every version shows the same objects). */
export const resourceKey = (group: string, plural: string): string => `${group}/${plural}`;

/** An object as put into the store: its metadata is completed there. */
export interface SimObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/** One shard's objects and resourceVersion counter. */
export class SimStore {
  private rv = 0;
  private seq = 0;
  private readonly tables = new Map<string, Table>();

  private readonly historyPerResource: number;

  constructor(historyPerResource: number) {
    this.historyPerResource = historyPerResource;
  }

  /** The shard's latest resourceVersion. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Serves `r` from now on. */
  define(r: SimResource): void {
    const key = resourceKey(r.group, r.plural);
    if (!this.tables.has(key)) this.tables.set(key, new Table(r, this.historyPerResource));
  }

  /** The table of a resource, by group and plural. */
  table(group: string, plural: string): Table | undefined {
    return this.tables.get(resourceKey(group, plural));
  }

  private must(r: SimResource): Table {
    const t = this.table(r.group, r.plural);
    if (t === undefined) throw new Error(`kcp-sim: resource ${resourceKey(r.group, r.plural)} is not defined`);
    return t;
  }

  /** Creates or replaces an object in a logical cluster; returns its resourceVersion. */
  put(r: SimResource, cluster: string, obj: SimObject): number {
    const t = this.must(r);
    const namespace = r.namespaced ? (obj.metadata.namespace ?? 'default') : '';
    const key = `${cluster}/${namespace}/${obj.metadata.name}`;
    const before = t.objects.get(key);
    const rv = ++this.rv;
    const seq = before?.seq ?? ++this.seq;
    const metadata = {
      ...obj.metadata,
      ...(r.namespaced ? { namespace } : {}),
      uid: `${cluster}-${seq}`,
      resourceVersion: String(rv),
      creationTimestamp: new Date(0).toISOString(),
      annotations: { ...obj.metadata.annotations, 'kcp.io/cluster': cluster },
    };
    const json = JSON.stringify({ apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, kind: r.kind, ...obj, metadata });
    const entry: Entry = { cluster, namespace, name: obj.metadata.name, labels: obj.metadata.labels ?? {}, rv, seq, json };
    t.record(key, { type: before === undefined ? 'ADDED' : 'MODIFIED', entry });
    return rv;
  }

  /** Deletes an object; returns whether it existed. */
  delete(r: SimResource, cluster: string, name: string, namespace = 'default'): boolean {
    const t = this.must(r);
    const key = `${cluster}/${r.namespaced ? namespace : ''}/${name}`;
    const before = t.objects.get(key);
    if (before === undefined) return false;
    const rv = ++this.rv;
    // The deleted object carries the delete's resourceVersion, as the API server sends it.
    const json = before.json.replace(`"resourceVersion":"${before.rv}"`, `"resourceVersion":"${rv}"`);
    t.record(key, { type: 'DELETED', entry: { ...before, rv, json } });
    return true;
  }

  /** Forgets every resource's history up to now: any watch resuming from before gets 410 Gone. */
  compact(): void {
    for (const t of this.tables.values()) t.compact(this.rv);
  }
}
