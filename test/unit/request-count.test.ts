// Counting requests where they are sent: the verb and result labels a transport reports (bounded:
// never a path or a name), the recorder in effect across what a run starts, and the series a run's
// metrics and a program's own `requestMetrics` keep; a renamed client's requests under the fleet's name.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RequestRecorder } from '../../src/client/index.js';
import { firstValueFrom, materialize } from 'rxjs';
import { countingRequests, createClusterClient, kubeError, requestResult, verbOfRequest } from '../../src/client/index.js';
import { countedName, countingAs, recorderInEffect } from '../../src/client/request-count.js';
import type { ClusterName, Verb } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { renamedClient } from '../../src/providers/internal/renamed-client.js';
import { must } from '../support/wait.js';
import { requestMetrics } from '../../src/runtime/index.js';
import { controllerMetrics, scopedMetrics } from '../../src/runtime/metrics.js';

/** A kubeconfig of one cluster that nothing answers (port 1): every request fails fast, and is counted. */
const down = (name: string): string => `apiVersion: v1
kind: Config
clusters: [{ name: ${name}, cluster: { server: 'https://127.0.0.1:1' } }]
users: [{ name: u, user: { token: not-a-secret } }]
contexts: [{ name: ${name}, context: { cluster: ${name}, user: u } }]
current-context: ${name}
`;

describe('verbOfRequest', () => {
  it('names the verb from the method and content type, a stream a watch, and takes the one the caller named', () => {
    expect(verbOfRequest({ method: 'GET' }, false)).toBe('get');
    expect(verbOfRequest({ method: 'GET' }, true)).toBe('watch');
    expect(verbOfRequest({ method: 'GET', verb: 'list' }, false)).toBe('list');
    expect(verbOfRequest({ method: 'POST' }, false)).toBe('create');
    expect(verbOfRequest({ method: 'PUT' }, false)).toBe('update');
    expect(verbOfRequest({ method: 'PATCH', contentType: 'application/merge-patch+json' }, false)).toBe('patch');
    expect(verbOfRequest({ method: 'PATCH', contentType: 'application/apply-patch+yaml' }, false)).toBe('apply');
    expect(verbOfRequest({ method: 'DELETE' }, false)).toBe('delete');
  });
});

describe('requestResult', () => {
  it('is the status class of an answer, else the tag of the error no answer came with', () => {
    expect([200, 201, 304, 404, 409, 429, 500, 503].map(requestResult)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '4xx', '5xx', '5xx']);
    expect(requestResult(kubeError('Conflict', clusterName('east'), 'modified', { code: 409 }))).toBe('4xx');
    expect(requestResult(kubeError('ClusterUnreachable', clusterName('east'), 'connect ECONNREFUSED'))).toBe('ClusterUnreachable');
    expect(requestResult(kubeError('Fenced', clusterName('east'), 'lease lost'))).toBe('Fenced');
    // A server's odd status stays within a bounded set.
    expect([0, 99, 600, 999].map(requestResult)).toEqual(['other', 'other', 'other', 'other']);
  });
});

describe('countingRequests', () => {
  it('puts a recorder in effect for everything its work starts, the innermost winning, and none outside', async () => {
    const outer: RequestRecorder = () => undefined;
    const inner: RequestRecorder = () => undefined;
    expect(recorderInEffect()).toBeUndefined();
    const seen = await countingRequests(outer, async () => {
      const found: (RequestRecorder | undefined)[] = [recorderInEffect()];
      await Promise.resolve();
      found.push(await new Promise<RequestRecorder | undefined>((resolve) => setTimeout(() => { resolve(recorderInEffect()); }, 0)));
      found.push(countingRequests(inner, () => recorderInEffect()));
      found.push(recorderInEffect());
      return found;
    });
    expect(seen).toEqual([outer, outer, inner, outer]);
    expect(recorderInEffect()).toBeUndefined();
  });
});

describe('request series', () => {
  it("are a run's fleet series, by verb and by cluster (never both), and a departed cluster's go", async () => {
    const m = controllerMetrics('requests');
    const east = clusterName('east');
    m.request(east, 'watch', '2xx');
    m.request(east, 'watch', '2xx');
    m.request(east, 'apply', '4xx');
    m.request(clusterName('hub'), 'list', '2xx');
    const text = await m.registry.metrics();
    expect(text).toContain('rxfleet_requests_total{verb="watch",result="2xx",controller="requests"} 2');
    expect(text).toContain('rxfleet_requests_total{verb="apply",result="4xx",controller="requests"} 1');
    expect(text).toContain('rxfleet_cluster_requests_total{cluster="east",result="2xx",controller="requests"} 2');
    expect(text).toContain('rxfleet_cluster_requests_total{cluster="east",result="4xx",controller="requests"} 1');
    // A cluster's requests cost one series per result, whatever the verbs.
    expect(text.split('\n').filter((l) => l.includes('cluster="east"'))).toHaveLength(2);
    m.forget(east);
    const after = await m.registry.metrics();
    expect(after).not.toContain('cluster="east"');
    expect(after).toContain('rxfleet_cluster_requests_total{cluster="hub",result="2xx",controller="requests"} 1');
    expect(after).toContain('rxfleet_requests_total{verb="watch",result="2xx",controller="requests"} 2');
  });

  it("are not a controller's own in a run of several (its reconcile scope), which counts them once for the fleet", async () => {
    const own = scopedMetrics('one', new Registry(), {}, 'reconcile');
    own.request(clusterName('east'), 'get', '2xx');
    expect(await own.registry.metrics()).not.toMatch(/rxfleet_(cluster_)?requests_total\{/);
  });

  it("of a program's own clients, under its controller label, forgotten by cluster", async () => {
    const requests = requestMetrics('rxfleet-sync-agent');
    requests.record(clusterName('service'), 'patch', '2xx');
    requests.record(clusterName('kcp'), 'get', '2xx');
    const text = await requests.registry.metrics();
    expect(text).toContain('rxfleet_requests_total{verb="patch",result="2xx",controller="rxfleet-sync-agent"} 1');
    expect(text).toContain('rxfleet_cluster_requests_total{cluster="service",result="2xx",controller="rxfleet-sync-agent"} 1');
    requests.record.forget?.(clusterName('kcp'));
    const after = await requests.registry.metrics();
    expect(after).not.toContain('cluster="kcp"');
    expect(after).toContain('cluster="service"');
  });
});

describe('a client counted while open', () => {
  it('takes its series with it when it closes (a kcp endpoint named by its URL); another client keeps its own', async () => {
    const m = controllerMetrics('endpoints');
    const record: RequestRecorder = Object.assign(
      (cluster: ClusterName, verb: Verb, result: string): void => {
        m.request(cluster, verb, result);
      },
      {
        forget: (cluster: ClusterName): void => {
          m.forget(cluster);
        },
      },
    );
    const url = clusterName('https://kcp.example:6443/services/apiexport/root:org/widgets/clusters/*');
    // Made where the recorder is in effect, as a provider's clients are in a run.
    const [endpoint, management] = countingRequests(record, () => [
      must(createClusterClient(url, { yaml: down('endpoint') }, { countedWhileOpen: true })),
      must(createClusterClient(clusterName('management'), { yaml: down('management') })),
    ]);
    await endpoint.get(configMaps, 'a', { namespace: 'default' });
    await management.get(configMaps, 'a', { namespace: 'default' });
    expect(await m.registry.metrics()).toContain(`rxfleet_cluster_requests_total{cluster="${url}",result="ClusterUnreachable",controller="endpoints"} 1`);
    endpoint.close();
    management.close();
    const after = await m.registry.metrics();
    expect(after).not.toContain(url);
    expect(after).toContain('rxfleet_cluster_requests_total{cluster="management",result="ClusterUnreachable",controller="endpoints"} 1');
    // Its fleet-wide count stays: those requests were sent.
    expect(after).toContain('rxfleet_requests_total{verb="get",result="ClusterUnreachable",controller="endpoints"} 2');
  });
});

describe('a renamed client', () => {
  it("counts each call, watches included, under the fleet's name, outer renames last, and nothing else under it", async () => {
    const seen: string[] = [];
    const record: RequestRecorder = (cluster, verb, result) => seen.push(`${cluster} ${verb} ${result}`);
    const east = must(createClusterClient(clusterName('east'), { yaml: down('east') }));
    const other = must(createClusterClient(clusterName('west'), { yaml: down('west') }));
    // A namespace-cluster borrowing east's client, then prefixed by withPrefix.
    const scoped = renamedClient(east, clusterName('team-a'));
    const prefixed = renamedClient(scoped, clusterName('prod#team-a'));
    await countingRequests(record, async () => {
      await prefixed.get(configMaps, 'a', { namespace: 'default' });
      await scoped.list(configMaps, { namespace: 'default' });
      await east.get(configMaps, 'a', { namespace: 'default' });
      await firstValueFrom(prefixed.watch(configMaps, { namespace: 'default' }).pipe(materialize()));
      // A call inside a renamed one's context to another cluster keeps its own name.
      await countingAs(clusterName('east'), clusterName('prod#team-a'), () => other.get(configMaps, 'a', { namespace: 'default' }));
    });
    expect(seen).toEqual(['prod#team-a get ClusterUnreachable', 'team-a list ClusterUnreachable', 'east get ClusterUnreachable', 'prod#team-a watch ClusterUnreachable', 'west get ClusterUnreachable']);
    expect(countedName(clusterName('east'))).toBe('east');
    east.close();
    other.close();
  });
});
