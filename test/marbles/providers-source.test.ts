// A provider's own management watch, in virtual time with an injected source: a watch that keeps
// failing is reported once per cause (not on every retry), logged, and reported once more when it
// recovers; no FleetEvent comes out of a failing source.
import type { Observable } from 'rxjs';
import { NEVER, of, throwError } from 'rxjs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ListOptions } from '../../src/client/index.js';
import type { KubeError, KubeObject, Namespace, ObjectList, Secret } from '../../src/index.js';
import { E, kubeError } from '../../src/index.js';
import type { Either } from '../../src/index.js';
import type { ProviderReport } from '../../src/providers/internal/report.js';
import { kubeconfigSecrets } from '../../src/providers/kubeconfig-secrets/index.js';
import { namespaces } from '../../src/providers/namespaces/index.js';
import type { WatchSource } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
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

function source<T extends Secret | Namespace>(lists: ListResult<T>[], watches: Observable<string>[] = []): { source: WatchSource<T>; lists: ListOptions[] } {
  const calls: ListOptions[] = [];
  return {
    lists: calls,
    source: {
      list: (o) => {
        calls.push(o);
        const next = lists.shift();
        if (next === undefined) throw new Error('unexpected list call');
        return next;
      },
      watch: () => watches.shift() ?? NEVER,
    },
  };
}

const fail = <T extends KubeObject>(e: KubeError): ListResult<T> => of(E.left(e));
const ok = <T extends KubeObject>(items: T[] = []): ListResult<T> => of(E.right({ metadata: { resourceVersion: '7' }, items }));

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly provider?: string;
  readonly management?: string;
  readonly resource?: string;
  readonly error?: string;
}

function describeReport(r: ProviderReport): string {
  return r.type === 'source' ? `${r.at} ${r.state}${r.state === 'failing' ? ` ${r.error}` : ''}` : `${r.at} ${r.type}`;
}

describe('kubeconfigSecrets: the health of its Secret watch', () => {
  it('should report a repeated 403 once, log it, emit no FleetEvent, and report the recovery once', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const reports: ProviderReport[] = [];
      const logged: LogLine[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as LogLine) });
      // Lists at 0, 10, 20, 30 are refused; the one at 40 works (the RBAC was fixed), with no Secret.
      const s = source<Secret>([fail(forbidden()), fail(forbidden()), fail(forbidden()), fail(forbidden()), ok()]);
      const provider = kubeconfigSecrets({
        cluster: hub,
        namespace: 'fleet',
        probe: false,
        scheduler: ts,
        logger,
        report: (r) => reports.push(r),
        watch: { source: s.source, scheduler: ts, streamingList: false, authBackoff: fast, backoff: fast, random: () => 1 },
      });
      expectObservable(provider, '^ 100ms !').toBe('');
      ts.flush();
      expect(s.lists).toHaveLength(5);
      expect(reports.map(describeReport)).toEqual(['0 failing Forbidden', '40 recovered']);
      const [failing, recovered] = reports;
      if (failing?.type !== 'source' || recovered?.type !== 'source') throw new Error('unreachable');
      expect(failing).toMatchObject({ provider: 'kubeconfig-secrets', management: 'hub', resource: 'secrets', error: 'Forbidden' });
      expect(failing.reason).toContain('watch of secrets in namespace "fleet" on management cluster "hub" is failing (Forbidden');
      expect(failing.reason).toContain("identity may not list/watch it");
      expect(failing.reason).toContain('cannot list resource "secrets"');
      expect(failing.reason).toContain('no cluster can be discovered');
      expect(recovered.reason).toBe('watch of secrets in namespace "fleet" on management cluster "hub" works again (it failed with Forbidden)');
      expect(logged.map((l) => [l.level, l.msg, l.provider, l.management, l.resource, l.error])).toEqual([
        [40, 'provider: source failing', 'kubeconfig-secrets', 'hub', 'secrets', 'Forbidden'],
        [30, 'provider: source recovered', 'kubeconfig-secrets', 'hub', 'secrets', undefined],
      ]);
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
      const provider = kubeconfigSecrets({
        cluster: hub,
        namespace: 'fleet',
        probe: false,
        scheduler: ts,
        report: (r) => reports.push(r),
        watch: { source: s.source, scheduler: ts, streamingList: false, authBackoff: fast, backoff: fast, random: () => 1 },
      });
      expectObservable(provider, '^ 100ms !').toBe('');
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
    });
  });
});

describe('namespaces: the health of its Namespace watch', () => {
  it('should report a refused Namespace watch once and its recovery once', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const reports: ProviderReport[] = [];
      const refused = kubeError('Forbidden', hub.name, 'namespaces is forbidden', { code: 403 });
      const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'u1', resourceVersion: '3' } };
      const s = source<Namespace>([fail(refused), fail(refused), ok([ns])]);
      const provider = namespaces({
        cluster: hub,
        scheduler: ts,
        report: (r) => reports.push(r),
        watch: { source: s.source, scheduler: ts, streamingList: false, authBackoff: fast, random: () => 1 },
      });
      expectObservable(provider, '^ 100ms !').toBe('--------------------a', { a: expect.objectContaining({ type: 'engaged' }) as unknown });
      ts.flush();
      expect(reports.map(describeReport)).toEqual(['0 failing Forbidden', '20 recovered', '20 engaged']);
      expect(reports[0]?.type === 'source' && reports[0].reason).toContain('watch of namespaces on management cluster "hub"');
    });
  });
});

