// Applies that send nothing through a provider's shared cache, on the shared kcp: a controller of an
// APIExport's Widgets (read through the endpoint's one wildcard watch, split by workspace) applies a
// label to each Widget, is restarted over the converged fleet and sends no apply at all, as counted
// where requests are sent (rxfleet_requests_total); the wildcard cache keeps the controller's own
// Apply entries of managedFields because the run's informers ask it to.
import { beforeAll, describe, expect, it } from 'vitest';
import { controller, done, toAction } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { apply } from '../../src/sinks/index.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { createIn, getIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import { eventually } from '../support/wait.js';
import type { CountedRun } from './counted-runs.js';
import { counter, countedRuns, unsentAfterRestart } from './counted-runs.js';

const PER_WORKSPACE = 4;
const fastWatch = { backoff: { initialMs: 200, maxMs: 2_000 }, authBackoff: { initialMs: 500, maxMs: 2_000 } };
const counted = countedRuns();

describe('apply sends nothing through a kcp APIExport shared cache when nothing would change', () => {
  let fx: ApiExportFixture;
  beforeAll(async () => {
    fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 2 });
    for (const ws of fx.consumers) {
      for (let i = 0; i < PER_WORKSPACE; i++) {
        await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: `w-${i}`, namespace: 'default' }, spec: { size: i } });
      }
    }
  });
  const N = (): number => fx.consumers.length * PER_WORKSPACE;

  const start = (): Promise<CountedRun> =>
    counted(controller<Widget>({
      name: 'widgets-unsent',
      fieldManager: 'rxfleet-kcp-unsent-test',
      provider: apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: fastWatch, exportName: fx.exportName }),
      resource: fx.widgets,
      watchOptions: fastWatch,
      reconcile: (req, ctx) => {
        if (req.object === undefined) return done();
        const labelled = { metadata: { name: req.key.name, namespace: req.key.namespace, labels: { 'example.dev/size': String(req.object.spec?.size ?? 0) } } };
        return apply(ctx.sinks, { cluster: req.cluster, resource: fx.widgets, object: labelled }).pipe(toAction());
      },
    }));
  const labelled = async (): Promise<boolean> => {
    for (const ws of fx.consumers) {
      for (let i = 0; i < PER_WORKSPACE; i++) {
        const w = (await getIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets/w-${i}`)) as Widget | undefined;
        if (w?.metadata.labels?.['example.dev/size'] !== String(i)) return false;
      }
    }
    return true;
  };

  it('sends no apply after a restart over the converged workspaces, and counts the provider its own requests', async () => {
    const first = await start();
    await eventually('every widget labelled', labelled, { timeoutMs: 60_000 });
    await eventually('the first run to have sent an apply per widget', async () => counter(await first.metrics(), 'rxfleet_requests_total', ['verb="apply"', 'result="2xx"']) >= N(), { timeoutMs: 30_000 });
    // Every workspace is read through the endpoint's shared watch: the only watches are the
    // provider's own (APIExportEndpointSlice, APIBindings, the Widgets' wildcard), none per
    // workspace, whose requests are its applies and nothing else (one scrape: both counters are
    // counted at once).
    const firstMetrics = await first.metrics();
    const workspaces = first.handle.fleet.clusters().map((c) => String(c.name));
    expect(counter(firstMetrics, 'rxfleet_requests_total', ['verb="watch"'])).toBeGreaterThan(0);
    const toWorkspaces = workspaces.reduce((n, ws) => n + counter(firstMetrics, 'rxfleet_cluster_requests_total', [`cluster="${ws}"`]), 0);
    expect(toWorkspaces).toBe(counter(firstMetrics, 'rxfleet_requests_total', ['verb="apply"']));
    // The endpoint's wildcard client is counted under its URL while the provider runs; its series
    // go with it (they stayed for the life of the process).
    const wildcard = /rxfleet_cluster_requests_total\{cluster="([^"]*\/clusters\/\*)"/.exec(firstMetrics)?.[1];
    expect(wildcard).toBeDefined();
    await first.handle.stop();
    expect(await first.handle.metrics.registry.metrics()).not.toContain(`cluster="${wildcard ?? ''}"`);

    // The restart: every widget is reconciled again, its apply proven needless from the shared cache.
    const { metrics: afterRestart } = await unsentAfterRestart(start, N(), 'widget', { timeoutMs: 60_000 });
    expect(counter(afterRestart, 'rxfleet_requests_total', ['verb="apply"'])).toBe(0);
    expect(counter(afterRestart, 'rxfleet_write_requests_total', ['verb="apply"'])).toBe(0);
  });
});
