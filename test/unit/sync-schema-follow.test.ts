// Schemas follow live (issue 28 item 3): the APIExport provider's watches of a published resource
// list again when a workspace's APIBinding moves to another schema of it, read from the binding
// events the provider's presence watch already receives; other changes of a binding, and other
// resources, pass through untouched.
import { Subject, VirtualTimeScheduler, from, lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { clusterName, configMaps, resource } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster } from '../../src/streams/index.js';
import { schemaFollower } from '../../packages/sync-agent/src/schema-follow.js';

const dbs = resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
const bindings = resource({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apibindings', kind: 'APIBinding', namespaced: false });
const binding = (schema: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { name: 'db', annotations: { 'kcp.io/cluster': 'ws-a' } },
  status: { boundResources: [{ group: 'db.example.dev', resource: 'databases', schema: { name: schema, UID: `uid-${schema}` } }], ...extra },
});

describe('schemaFollower', () => {
  it("ends a published resource's open watch with one 410 Gone for the moves of a window, and only for moves", async () => {
    const lines = new Map<string, Subject<string>>();
    const client = {
      list: () => Promise.resolve(E.right({ metadata: {}, items: [binding('v1')] })),
      watch: (r: { plural: string }) => {
        const s = new Subject<string>();
        lines.set(r.plural, s);
        return s;
      },
    } as unknown as ClusterClient;
    const cluster: Cluster = { name: clusterName('wildcard'), client };
    const scheduler = new VirtualTimeScheduler();
    const follow = schemaFollower([dbs], { coalesceMs: 2_000, scheduler });
    const seen: string[] = [];
    const other: string[] = [];
    // The presence watch lists (recording v1), then watches; the published watch and another are open.
    await lastValueFrom(from(follow.listerWatcherFor(cluster, bindings).list({})));
    follow.listerWatcherFor(cluster, bindings).watch({}).subscribe();
    follow.listerWatcherFor(cluster, dbs).watch({}).subscribe((l) => seen.push(l));
    follow.listerWatcherFor(cluster, configMaps).watch({}).subscribe((l) => other.push(l));
    const b = lines.get('apibindings');
    // A status change that keeps the schema: nothing.
    b?.next(JSON.stringify({ type: 'MODIFIED', object: binding('v1', { phase: 'Bound' }) }));
    expect(seen).toEqual([]);
    scheduler.flush();
    expect(seen).toEqual([]);
    // The binding moves to schema v2, then again to v3 within the window: the published watch gets
    // one 410 at the window's end, the other watch nothing.
    b?.next(JSON.stringify({ type: 'MODIFIED', object: binding('v2') }));
    b?.next(JSON.stringify({ type: 'MODIFIED', object: binding('v3') }));
    expect(seen).toEqual([]);
    scheduler.flush();
    expect(seen.map((l) => (JSON.parse(l) as { object: { code: number } }).object.code)).toEqual([410]);
    expect(other).toEqual([]);
  });
});
