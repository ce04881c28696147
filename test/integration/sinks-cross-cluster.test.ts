// Cross-cluster ownership on real kcp: a source in one workspace fans out to three others with
// back-references; deleting the source removes every target through its finalizer; and a sweep
// removes targets whose source vanished (or was replaced) while the controller was down.
import { firstValueFrom, lastValueFrom, merge, toArray } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { SinkContext, SourceIdentity, WriteOutcome } from '../../src/sinks/index.js';
import {
  apply,
  ensureFinalizer,
  readBackReference,
  releaseSource,
  deleteObject,
  removeFinalizer,
  sinkContext,
  sourceIdentity,
  sourceLabel,
  sourceSelector,
  sweepOrphans,
  withBackReference,
} from '../../src/sinks/index.js';
import { fixedFleet } from './sinks-fleet.js';
import type { Sandbox } from './targets.js';
import { kcpTarget, randomName } from './targets.js';
import { eventually, must } from '../support/wait.js';

const finalizer = 'test.rxfleet.dev/fan-out';

function ok(o: WriteOutcome<ConfigMap>): ConfigMap {
  if (E.isLeft(o)) throw new Error(`${o.left.type}: ${o.left.message}`);
  if (o.right.object === undefined) throw new Error('no object in the outcome');
  return o.right.object;
}

describe('cross-cluster ownership across kcp workspaces', () => {
  let hub: Sandbox;
  let spokes: Sandbox[];
  let ctx: SinkContext;
  beforeAll(async () => {
    [hub, ...spokes] = await Promise.all([kcpTarget.sandbox(), kcpTarget.sandbox(), kcpTarget.sandbox(), kcpTarget.sandbox()]);
    ctx = sinkContext({ clusters: fixedFleet([hub, ...spokes]), fieldManager: 'rxfleet-fan-out' });
  });

  /** What the controller does for a live source: hold it with a finalizer, copy it to every spoke with a back-reference. */
  async function fanOut(name: string, withFinalizer: boolean): Promise<{ source: ConfigMap; id: SourceIdentity }> {
    let source = ok(await firstValueFrom(apply(ctx, { cluster: hub.cluster, resource: configMaps, object: { metadata: { name, namespace: 'default' }, data: { v: '1' } } })));
    if (withFinalizer) source = ok(await firstValueFrom(ensureFinalizer(ctx, { key: objectKey(hub.cluster, 'default', name), resource: configMaps, finalizer })));
    const id = sourceIdentity(hub.cluster, configMaps, source);
    const copies = spokes.map((s) =>
      apply(ctx, { cluster: s.cluster, resource: configMaps, object: withBackReference({ metadata: { name: `copy-of-${name}`, namespace: 'default' }, data: source.data ?? {} }, id) }),
    );
    const outcomes = await lastValueFrom(merge(...copies).pipe(toArray()));
    for (const o of outcomes) expect(readBackReference(ok(o))).toEqual(id);
    return { source, id };
  }

  async function targetsOf(id: SourceIdentity): Promise<string[]> {
    const found: string[] = [];
    for (const s of spokes) {
      const list = must(await s.client.list(configMaps, { namespace: 'default', labelSelector: sourceSelector(id) }));
      found.push(...list.items.map((i) => `${s.cluster}/${i.metadata.name ?? ''}`));
    }
    return found;
  }

  const gone = async (c: Sandbox, name: string): Promise<boolean> => {
    const r = await c.client.get(configMaps, name, { namespace: 'default' });
    return E.isLeft(r) && r.left.type === 'NotFound';
  };

  it('removes every target through the finalizer when the source is deleted', async () => {
    const name = randomName('src');
    const { id } = await fanOut(name, true);
    expect(await targetsOf(id)).toHaveLength(3);

    const deleting = ok(await firstValueFrom(deleteObject(ctx, { key: objectKey(hub.cluster, 'default', name), resource: configMaps })));
    expect(deleting.metadata.deletionTimestamp).toBeTruthy(); // held by our finalizer

    const outcomes = await lastValueFrom(releaseSource(ctx, { source: id, resource: configMaps, finalizer, targets: [configMaps] }).pipe(toArray()));
    expect(outcomes.filter(E.isLeft)).toEqual([]);
    expect(outcomes.map((o) => E.isRight(o) && o.right.verb)).toEqual(['delete', 'delete', 'delete', 'update']);
    expect(await targetsOf(id)).toEqual([]);
    await eventually('the source to be gone', async () => ((await gone(hub, name)) ? true : undefined));
  });

  it('sweeps targets whose source vanished or was replaced while the controller was down, and keeps the rest', async () => {
    const vanished = randomName('vanished');
    const replaced = randomName('replaced');
    const alive = randomName('alive');
    const a = await fanOut(vanished, false);
    const b = await fanOut(replaced, false);
    const c = await fanOut(alive, false);
    // A target whose source cluster is not in the fleet: it cannot be checked, so it must survive.
    const elsewhere: ClusterName = clusterName('root:not-engaged');
    const unknownSource = sourceIdentity(elsewhere, configMaps, { metadata: { name: 'x', namespace: 'default', uid: 'u-unknown' } });
    const [firstSpoke] = spokes;
    if (firstSpoke === undefined) throw new Error('no spokes');
    const unknownTarget = `copy-from-elsewhere-${randomName('t')}`;
    ok(await firstValueFrom(apply(ctx, { cluster: firstSpoke.cluster, resource: configMaps, object: withBackReference({ metadata: { name: unknownTarget, namespace: 'default' } }, unknownSource) })));

    // "The controller is down": the sources change without anyone cleaning up.
    must(await hub.client.delete(configMaps, vanished, { namespace: 'default' }));
    must(await hub.client.delete(configMaps, replaced, { namespace: 'default' }));
    const reborn = must(await hub.client.create(configMaps, { metadata: { name: replaced, namespace: 'default' } }));
    expect(reborn.metadata.uid).not.toBe(b.id.uid);

    const outcomes = await lastValueFrom(sweepOrphans(ctx, { sourceResource: configMaps, targets: [configMaps] }).pipe(toArray()));
    expect(outcomes.filter(E.isLeft)).toEqual([]);
    const removed = outcomes.flatMap((o) => (E.isRight(o) && o.right.changed ? [`${o.right.cluster}/${o.right.key.name}`] : []));
    expect(removed.sort()).toEqual([...spokes.map((s) => `${s.cluster}/copy-of-${vanished}`), ...spokes.map((s) => `${s.cluster}/copy-of-${replaced}`)].sort());
    expect(await targetsOf(a.id)).toEqual([]);
    expect(await targetsOf(b.id)).toEqual([]);
    expect(await targetsOf(c.id)).toHaveLength(3);
    expect(await gone(firstSpoke, unknownTarget)).toBe(false);

    // A second sweep finds nothing more to do.
    const again = await lastValueFrom(sweepOrphans(ctx, { sourceResource: configMaps, targets: [configMaps] }).pipe(toArray()));
    expect(again.filter((o) => E.isLeft(o) || o.right.changed)).toEqual([]);
    const labelled = must(await firstSpoke.client.list(configMaps, { namespace: 'default', labelSelector: sourceLabel }));
    expect(labelled.items.map((i) => i.metadata.name).sort()).toEqual([`copy-of-${alive}`, unknownTarget].sort());
  });

  it('leaves the finalizer in place when a target cannot be deleted', async () => {
    const name = randomName('stuck');
    const { id } = await fanOut(name, true);
    const limitedName = clusterName(`${hub.cluster}-limited-spoke`);
    const [spoke] = spokes;
    if (spoke === undefined) throw new Error('no spokes');
    const limited = must(createClusterClient(limitedName, { yaml: await spoke.limitedKubeconfig() }));
    const limitedCtx = sinkContext({ clusters: fixedFleet([hub, { cluster: limitedName, client: limited }]), fieldManager: 'rxfleet-fan-out' });
    const outcomes = await lastValueFrom(releaseSource(limitedCtx, { source: id, resource: configMaps, finalizer, targets: [configMaps] }).pipe(toArray()));
    expect(outcomes.some((o) => E.isLeft(o) && o.left.type === 'Forbidden' && o.left.cluster === limitedName)).toBe(true);
    expect(must(await hub.client.get(configMaps, name, { namespace: 'default' })).metadata.finalizers).toEqual([finalizer]);
    limited.close();
    // Clean up with full rights: the finalizer comes off and the (undeleted) source stays.
    const cleaned = await firstValueFrom(removeFinalizer(ctx, { key: objectKey(hub.cluster, 'default', name), resource: configMaps, finalizer }));
    expect(E.isRight(cleaned) && cleaned.right.changed).toBe(true);
  });
});
