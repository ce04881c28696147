// A controller under the envtest kube-apiserver's `limited` user, allowed to read ConfigMaps but
// not to write them: its write is refused (403), retried with backoff, and /readyz and /metrics
// report the cluster degraded. The operator grants RBAC while it runs (a Role and RoleBinding made
// as admin): the same key gets through with no change to any object, and /readyz recovers.
import { pino } from 'pino';
import { E } from '../../src/fp/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigMap, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, run, toAction } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { roleBindings, roles } from '../../src/resources/index.js';
import { apply } from '../../src/sinks/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom, clusterFrom, httpGet, randomName } from './runtime-support.js';

const quiet = pino({ level: process.env.RT_LOG ?? 'silent' });
const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

const limitedUser = 'rxfleet-limited';

describe('a write the server forbids, then RBAC granted at run time', () => {
  it('is retried with backoff while /readyz reports the cluster degraded, and gets through once granted, with no change to the object', async () => {
    const server = sharedKubeApiserver();
    const admin = clientFrom('admin', server.kubeconfigYaml('admin'));
    const namespace = await server.createNamespace('denied');
    const grant = async (name: string, verbs: readonly string[]): Promise<void> => {
      must(await admin.create(roles, { metadata: { name, namespace }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: [...verbs] }] }), `create Role ${name}`);
      must(
        await admin.create(roleBindings, {
          metadata: { name, namespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: limitedUser }],
        }),
        `create RoleBinding ${name}`,
      );
    };
    // The controller may watch ConfigMaps in its namespace, not write them.
    await grant('read', ['get', 'list', 'watch']);
    const source = must(await admin.create(configMaps, { metadata: { name: 'source', namespace }, data: { v: '1' } }), 'create the source');

    const cluster = clusterName('envtest');
    const c = controller({
      name: randomName('denied'),
      provider: staticProvider([clusterFrom(cluster, server.kubeconfigYaml('limited'))]),
      resource: configMaps,
      select: { namespace },
      queue: { authBackoff: { initialMs: 200, factor: 2, maxMs: 1_000, jitter: 0 } },
      reconcile: (req, ctx) => {
        if (req.object === undefined || req.key.name !== 'source') return done();
        const copy: ConfigMap = { metadata: { name: 'copy', namespace }, data: req.object.data ?? {} };
        return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: copy }).pipe(toAction());
      },
    });
    const outcomes: Outcome[] = [];
    const handle = await run(c, { logger: quiet, signals: false, http: { port: 0 }, onOutcome: (o) => outcomes.push(o) });
    handles.push(handle);
    const url = handle.url ?? '';
    const sourceRuns = () => outcomes.filter((o) => o.key.name === 'source');

    // Refused, and retried on the auth backoff: 200 ms, then 400 ms, … (no object changed meanwhile).
    await eventually('three refused attempts of the source key', () => sourceRuns().length >= 3, { timeoutMs: 30_000 });
    expect(sourceRuns().slice(0, 3).map((o) => [o.result, o.attempt, o.retryAfterMs, (o.error as { code?: number }).code])).toEqual([
      ['error', 1, 200, 403],
      ['error', 2, 400, 403],
      ['error', 3, 800, 403],
    ]);
    const degraded = await eventually(
      '/readyz to report the cluster degraded',
      async () => {
        const r = await httpGet(`${url}/readyz`);
        return r.status === 503 && r.body.includes(`cluster ${cluster}: unhealthy`) && r;
      },
      { timeoutMs: 30_000 },
    );
    expect(degraded.body).toMatch(/requests refused \(403 Forbidden\).*User "rxfleet-limited" cannot patch resource "configmaps"/);
    expect((await httpGet(`${url}/metrics`)).body).toMatch(new RegExp(`rxfleet_reconcile_denied_keys\\{cluster="${cluster}",controller="${c.name}"\\} 1`));

    // The operator fixes RBAC while the controller runs.
    await grant('write', ['create', 'patch']);
    const copy = await eventually(
      'the copy written by the retried key',
      async () => {
        const r = await admin.get(configMaps, 'copy', { namespace });
        return E.isRight(r) && r.right;
      },
      { timeoutMs: 30_000 },
    );
    expect(copy.data).toEqual({ v: '1' });
    await eventually('/readyz to answer 200 again', async () => (await httpGet(`${url}/readyz`)).status === 200, { timeoutMs: 30_000 });
    expect((await httpGet(`${url}/readyz`)).body).toContain(`cluster ${cluster}: synced`);
    expect((await httpGet(`${url}/metrics`)).body).not.toContain('rxfleet_reconcile_denied_keys{');
    // The same key got through: the source never changed, and its last run succeeded.
    expect(must(await admin.get(configMaps, 'source', { namespace })).metadata.resourceVersion).toBe(source.metadata.resourceVersion);
    expect(sourceRuns().at(-1)?.result).toBe('done');
  });
});
