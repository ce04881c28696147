// A provider's own management watch, in virtual time with an injected source: a watch that keeps
// failing is reported once per cause (not on every retry), in the provider's own stream, and
// reported once more when it recovers; no lifecycle event comes out of a failing source. A Secret
// that holds garbage is reported as skipped, naming the Secret; a good one carries its labels.
import type { Observable } from 'rxjs';
import { filter, map, NEVER, of, tap, throwError } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ListOptions } from '../../src/client/index.js';
import type { KubeError } from '../../src/core/errors.js';
import { kubeError } from '../../src/core/errors.js';
import type { KubeObject, Namespace, ObjectList, Secret } from '../../src/core/object.js';
import type { Either } from '../../src/internal/fp.js';
import { E } from '../../src/internal/fp.js';
import { kubeconfigSecretProvider } from '../../src/providers/kubeconfig-secrets/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import type { FleetEvent } from '../../src/streams/cluster.js';
import type { ProviderReport } from '../../src/streams/provider-report.js';
import type { ListerWatcher } from '../../src/streams/watch-source.js';
import type { WatchesOptions } from '../../src/streams/watched.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { testScheduler } from './watch-fixtures.js';

const hub = fakeCluster('hub');
const fast = { initialMs: 10, factor: 1, maxMs: 10, resetAfterMs: 1_000_000 };

const forbidden = (): KubeError =>
  kubeError('Forbidden', hub.name, 'secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "fleet"', {
    code: 403,
    reason: 'Forbidden',
    request: 'GET /api/v1/namespaces/fleet/secrets',
  });
const unreachable = (): KubeError => kubeError('ClusterUnreachable', hub.name, 'connect ECONNREFUSED 127.0.0.1:6443');

type ListResult<T extends KubeObject> = Observable<Either<KubeError, ObjectList<T>>>;

/** The list/watch calls of the provider's one management watch (`managementWatch.sourceFor`), scripted. */
function source<T extends Secret | Namespace>(lists: ListResult<T>[], watches: Observable<string>[] = []): { sourceFor: NonNullable<WatchesOptions['listerWatcherFor']>; lists: ListOptions[] } {
  const calls: ListOptions[] = [];
  const scripted: ListerWatcher<T> = {
    list: (o) => {
      calls.push(o);
      const next = lists.shift();
      if (next === undefined) throw new Error('unexpected list call');
      return next;
    },
    watch: () => watches.shift() ?? NEVER,
  };
  // The provider watches one resource, of the type scripted here.
  return { lists: calls, sourceFor: <U extends KubeObject>() => scripted as unknown as ListerWatcher<U> };
}

const fail = <T extends KubeObject>(e: KubeError): ListResult<T> => of(E.left(e));
const ok = <T extends KubeObject>(items: T[] = []): ListResult<T> => of(E.right({ metadata: { resourceVersion: '7' }, items }));

/** The provider's reports, collected from its own stream, and its lifecycle events only. */
/** The Secrets provider of namespace `fleet` on the hub, its watch read through `sourceFor` and retried every 10 ms. */
function retryingSecrets(ts: TestScheduler, sourceFor: NonNullable<WatchesOptions['listerWatcherFor']>): Observable<FleetEvent> {
  return kubeconfigSecretProvider({
    management: hub,
    namespace: 'fleet',
    probe: false,
    scheduler: ts,
    managementWatch: { listerWatcherFor: sourceFor, scheduler: ts, streamingList: false, authBackoff: fast, backoff: fast, random: () => 1 },
  });
}

function split(provider: Observable<FleetEvent>, reports: ProviderReport[]): Observable<FleetEvent> {
  return provider.pipe(
    tap((ev) => ev.type === 'report' && reports.push(ev.report)),
    filter((ev) => ev.type !== 'report'),
  );
}

function describeReport(r: ProviderReport): string {
  if (r.type === 'discovered') return `${r.at} discovered ${r.clusters}/${r.candidates}`;
  return r.type === 'source' ? `${r.at} ${r.state}${r.state === 'failing' ? ` ${r.error}` : ''}` : `${r.at} ${r.type}`;
}

describe('kubeconfigSecretProvider: the health of its Secret watch', () => {
  it('should report a repeated 403 once in its stream, engage nothing, and report the recovery once', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const reports: ProviderReport[] = [];
      // Lists at 0, 10, 20, 30 are refused; the one at 40 works (the RBAC was fixed), with no Secret.
      const s = source<Secret>([fail(forbidden()), fail(forbidden()), fail(forbidden()), fail(forbidden()), ok()]);
      const provider = retryingSecrets(ts, s.sourceFor);
      expectObservable(split(provider, reports), '^ 100ms !').toBe('');
      ts.flush();
      expect(s.lists).toHaveLength(5);
      // The first pass is the first list that works: nothing is discovered while the list is refused.
      expect(reports.map(describeReport)).toEqual(['0 failing Forbidden', '40 recovered', '40 discovered 0/0']);
      const [failing, recovered] = reports;
      if (failing?.type !== 'source' || recovered?.type !== 'source') throw new Error('unreachable');
      expect(failing).toMatchObject({ provider: 'kubeconfig-secrets', management: 'hub', resource: 'secrets', error: 'Forbidden' });
      expect(failing.reason).toContain('watch of secrets in namespace "fleet" on management cluster "hub" is failing (Forbidden');
      expect(failing.reason).toContain("identity may not list/watch it");
      expect(failing.reason).toContain('cannot list resource "secrets"');
      expect(failing.reason).toContain('no cluster can be discovered');
      expect(recovered.reason).toBe('watch of secrets in namespace "fleet" on management cluster "hub" works again (it failed with Forbidden)');
    });
  });

  it('should report each distinct cause once per failure episode, and a failing resumed watch without flapping', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const reports: ProviderReport[] = [];
      const secret: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'east', namespace: 'fleet', resourceVersion: '8' }, data: {} };
      // Lists: 403 at 0, unreachable at 10, 403 at 20, ok at 30 (synced). Then the watch is cut at 32,
      // refused at 42 and 52 (each retry opens a request: no flapping), and delivers a Secret at 63.
      const s = source<Secret>(
        [fail(forbidden()), fail(unreachable()), fail(forbidden()), ok()],
        [
          cold('--#', undefined, unreachable()),
          throwError(() => unreachable()),
          throwError(() => unreachable()),
          cold('-a', { a: JSON.stringify({ type: 'ADDED', object: secret }) }),
        ],
      );
      const provider = retryingSecrets(ts, s.sourceFor);
      expectObservable(split(provider, reports), '^ 100ms !').toBe('');
      ts.flush();
      expect(reports.filter((r) => r.type === 'source').map(describeReport)).toEqual([
        '0 failing Forbidden',
        '10 failing ClusterUnreachable',
        '30 recovered',
        '32 failing ClusterUnreachable',
        '63 recovered',
      ]);
      const resumed = reports.find((r) => r.type === 'source' && r.at === 32);
      expect(resumed?.type === 'source' && resumed.reason).toContain('clusters already engaged stay engaged');
      const firstRecovery = reports.find((r) => r.type === 'source' && r.at === 30);
      expect(firstRecovery?.type === 'source' && firstRecovery.reason).toContain('it failed with Forbidden, ClusterUnreachable');
      // The Secret without a kubeconfig arrived through the recovered watch.
      expect(reports.some((r) => r.type === 'skipped' && r.candidate === 'east')).toBe(true);
      // The first pass ended with the first list that worked (empty), once: not again when the watch resumed.
      expect(reports.filter((r) => r.type === 'discovered').map(describeReport)).toEqual(['30 discovered 0/0']);
    });
  });
});

describe('kubeconfigSecretProvider: what a Secret becomes', () => {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const kubeconfig = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:1' } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'k', context: { cluster: 'k', user: 'u' } }],
    'current-context': 'k',
  });
  const secret = (name: string, data: string, labels: Record<string, string> = {}): Secret => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'fleet', resourceVersion: '5', labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true', ...labels } },
    data: { kubeconfig: b64(data) },
  });

  it('should report a Secret holding garbage as skipped, naming the Secret and the cause, and engage a good one with its labels and identity', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const reports: ProviderReport[] = [];
      const s = source<Secret>([ok([secret('garbage', 'clusters: [ {'), secret('east', kubeconfig, { region: 'eu' })])]);
      const provider = kubeconfigSecretProvider({ management: hub, namespace: 'fleet', probe: false, scheduler: ts, managementWatch: { listerWatcherFor: s.sourceFor, scheduler: ts, streamingList: false } });
      const engagedAs = (ev: FleetEvent): unknown => (ev.type === 'engaged' ? { name: ev.cluster.name, identity: ev.cluster.identity, labels: ev.cluster.labels } : ev);
      expectObservable(split(provider, reports).pipe(map(engagedAs)), '^ 10ms !').toBe('e', {
        e: {
          name: 'east',
          identity: { provider: 'kubeconfig-secrets', from: 'Secret fleet/east' },
          labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true', region: 'eu' },
        },
      });
      ts.flush();
      expect(reports.map((r) => (r.type === 'discovered' ? describeReport(r) : `${r.at} ${r.type} ${'candidate' in r ? r.candidate : 'cluster' in r ? r.cluster : ''}`))).toEqual([
        '0 skipped garbage',
        '0 engaged east',
        '0 discovered 1/2',
      ]);
      const skipped = reports[0];
      expect(skipped?.type === 'skipped' && skipped.reason).toMatch(/^Secret fleet\/garbage: invalid kubeconfig: unexpected end of the stream within a flow collection at line \d+, column \d+$/);
    });
  });
});

describe('namespaceProvider: the health of its Namespace watch', () => {
  it('should report a refused Namespace watch once and its recovery once', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const reports: ProviderReport[] = [];
      const refused = kubeError('Forbidden', hub.name, 'namespaces is forbidden', { code: 403 });
      const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'u1', resourceVersion: '3' } };
      const s = source<Namespace>([fail(refused), fail(refused), ok([ns])]);
      const provider = namespaceProvider({
        management: hub,
        scheduler: ts,
        managementWatch: { listerWatcherFor: s.sourceFor, scheduler: ts, streamingList: false, authBackoff: fast, random: () => 1 },
      });
      expectObservable(split(provider, reports), '^ 100ms !').toBe('--------------------a', { a: expect.objectContaining({ type: 'engaged' }) as unknown });
      ts.flush();
      expect(reports.map(describeReport)).toEqual(['0 failing Forbidden', '20 recovered', '20 engaged', '20 discovered 1/1']);
      expect(reports[0]?.type === 'source' && reports[0].reason).toContain('watch of namespaces on management cluster "hub"');
    });
  });
});

