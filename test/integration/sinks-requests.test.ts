// No hidden requests, on real servers: one request per apply and per status patch, a read only when
// asked for, and `changed` right for create, no-op and change when the caller says what it knew
// ('unknown' when it did not). Counted at the client the sinks are given and, on kube-apiserver,
// by the server itself (apiserver_request_total of a CRD group only this test uses).
import { firstValueFrom } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import { objectKey } from '../../src/index.js';
import type { ApplyWrite, SinkContext, WriteOutcome } from '../../src/sinks/index.js';
import { apply, patch, sinkContext } from '../../src/sinks/index.js';
import { countingFleet } from './sinks-fleet.js';
import type { Sandbox, Widget } from './targets.js';
import { randomName, targets, widgetsCrd } from './targets.js';
import { eventually, must } from '../support/wait.js';

function ok(o: WriteOutcome<Widget>) {
  if (E.isLeft(o)) throw new Error(`${o.left.type}: ${o.left.message}`);
  return o.right;
}

/** The server's own count of finished requests per verb for one API group (kube-apiserver's /metrics). */
async function serverCounts(sb: Sandbox, group: string): Promise<Record<string, number>> {
  const text = must(await sb.client.raw({ method: 'GET', path: '/metrics' }));
  if (typeof text !== 'string') throw new Error('/metrics did not answer text');
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{') || !line.includes(`group="${group}"`)) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '?';
    counts[verb] = (counts[verb] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return counts;
}

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).flatMap(([verb, n]) => (n - (before[verb] ?? 0) > 0 ? [[verb, n - (before[verb] ?? 0)]] : [])));

describe.each(targets)('sink requests against $name', (target) => {
  let sb: Sandbox;
  let widgets: ResourceDescriptor<Widget>;
  let ctx: SinkContext;
  let calls: string[];
  beforeAll(async () => {
    sb = await target.sandbox();
    widgets = await widgetsCrd(sb.client, sb.namespace);
    const counting = countingFleet(sb.cluster, sb.client);
    calls = counting.calls;
    ctx = sinkContext({ clusters: counting.fleet, fieldManager: 'rxfleet-requests-test' });
  });

  const widget = (name: string, size: number): ApplyWrite<Widget> => ({
    cluster: sb.cluster,
    resource: widgets,
    object: { apiVersion: `${widgets.group}/v1`, kind: 'Widget', metadata: { name, namespace: sb.namespace }, spec: { size } },
  });
  const sent = async <T>(run: () => Promise<T>): Promise<{ value: T; calls: string[] }> => {
    const from = calls.length;
    const value = await run();
    return { value, calls: calls.slice(from) };
  };

  it('sends one PATCH per apply, and tells create, no-op and change from `current`', async () => {
    const name = randomName('w');
    const before = target.name === 'kube-apiserver' ? await serverCounts(sb, widgets.group) : {};

    const created = await sent(async () => ok(await firstValueFrom(apply(ctx, { ...widget(name, 1), current: null }))));
    expect(created).toMatchObject({ calls: ['apply'], value: { changed: true, attempts: 1 } });
    const noop = await sent(async () => ok(await firstValueFrom(apply(ctx, { ...widget(name, 1), current: created.value.object }))));
    expect(noop).toMatchObject({ calls: ['apply'], value: { changed: false } });
    // Asked again with nothing known: still one request, and an honest 'unknown'.
    const blind = await sent(async () => ok(await firstValueFrom(apply(ctx, widget(name, 1)))));
    expect(blind).toMatchObject({ calls: ['apply'], value: { changed: 'unknown' } });
    const change = await sent(async () => ok(await firstValueFrom(apply(ctx, { ...widget(name, 2), current: blind.value.object }))));
    expect(change).toMatchObject({ calls: ['apply'], value: { changed: true, object: { spec: { size: 2 } } } });
    // The read is there when asked for, and only then.
    const read = await sent(async () => ok(await firstValueFrom(apply(ctx, { ...widget(name, 2), readFirst: true }))));
    expect(read).toMatchObject({ calls: ['get', 'apply'], value: { changed: false } });

    const key = objectKey(sb.cluster, sb.namespace, name);
    const status = await sent(async () => ok(await firstValueFrom(patch(ctx, { key, resource: widgets, subresource: 'status', patch: { status: { ready: true } }, current: read.value.object }))));
    expect(status).toMatchObject({ calls: ['patch'], value: { changed: true, object: { status: { ready: true } } } });
    const statusNoop = await sent(async () => ok(await firstValueFrom(patch(ctx, { key, resource: widgets, subresource: 'status', patch: { status: { ready: true } }, current: status.value.object }))));
    expect(statusNoop).toMatchObject({ calls: ['patch'], value: { changed: false } });

    if (target.name === 'kube-apiserver') {
      // A server-side apply that changes nothing is not persisted: same resourceVersion back.
      expect(noop.value.object?.metadata.resourceVersion).toBe(created.value.object?.metadata.resourceVersion);
      expect(blind.value.object?.metadata.resourceVersion).toBe(created.value.object?.metadata.resourceVersion);
      // The server saw what the client was handed: 5 applies, 1 GET, 2 PATCHes, nothing else.
      const want = { APPLY: 5, GET: 1, PATCH: 2 };
      const seen = await eventually('the server to count every request', async () => {
        const d = delta(await serverCounts(sb, widgets.group), before);
        return (d.APPLY ?? 0) >= want.APPLY && (d.PATCH ?? 0) >= want.PATCH ? d : undefined;
      });
      expect(seen).toEqual(want);
    }
  });

  it('tells a missing object from a missing status subresource by the 404 alone, without a read', async () => {
    const key = objectKey(sb.cluster, sb.namespace, randomName('absent'));
    const missing = await sent(() => firstValueFrom(patch(ctx, { key, resource: widgets, subresource: 'status', patch: { status: { ready: true } } })));
    expect(missing.calls).toEqual(['patch']);
    expect(E.isLeft(missing.value) && missing.value.left).toMatchObject({ type: 'NotFound', code: 404, attempts: 1 });
    const missingApply = await sent(() => firstValueFrom(apply(ctx, { ...widget(key.name, 1), object: { ...widget(key.name, 1).object, status: { ready: true } }, subresource: 'status' })));
    expect(missingApply.calls).toEqual(['apply']);
    expect(E.isLeft(missingApply.value) && missingApply.value.left.type).toBe('NotFound');
  });
});
