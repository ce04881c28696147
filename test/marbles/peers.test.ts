// observePeers in virtual time, against a scripted Lease API: members appear, renew and expire
// exactly leaseDuration after their last observed change (not at a poll), ack and weight changes
// are emitted, a failing or hung LIST never extends liveness, a vanished Lease stays live until it
// expires (the leader election's rule), and expired Leases are deleted at the first LIST after they
// expire, with a resourceVersion precondition (self's never).
import type { Observable } from 'rxjs';
import { map, NEVER, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { clusterName } from '../../src/core/cluster.js';
import type { KubeError, KubeErrorType } from '../../src/core/errors.js';
import { kubeError } from '../../src/core/errors.js';
import type { Either } from '../../src/internal/fp.js';
import { E } from '../../src/internal/fp.js';
import type { PeerLease, PeerLeaseApi, PeerSet } from '../../src/runtime/ha/peers.js';
import { observePeers } from '../../src/runtime/ha/peers.js';
import { memberLeaseName } from '../../src/runtime/ha/shard-view.js';
import { testScheduler } from '../support/marbles.js';

const home = clusterName('home');
// Polls at 0, 3, 6, ...; expiries at other frames show they come from a timer, not from a poll.
const timing = { leaseDurationMs: 10, retryPeriodMs: 3 };
const fail = (type: KubeErrorType): KubeError => kubeError(type, home, `scripted ${type}`);

function lease(name: string, identity: string, rv: string, annotations: Record<string, string> = {}, deleting = false): PeerLease {
  return {
    metadata: { name, namespace: 'ops', resourceVersion: rv, annotations, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { holderIdentity: identity },
  };
}

type Answer<T> = Either<KubeError, T> | 'hang';

interface Script {
  list(t: number): Answer<readonly PeerLease[]>;
  delete?(t: number, name: string, rv: string): Answer<unknown>;
}

function fakeApi(ts: TestScheduler, script: Script) {
  const lists: number[] = [];
  const selectors = new Set<string>();
  const deletes: string[] = [];
  const answer = <T>(a: Answer<T>): Observable<Either<KubeError, T>> => (a === 'hang' ? NEVER : of(a));
  const api: PeerLeaseApi = {
    cluster: home,
    list: (namespace, labelSelector) => {
      lists.push(ts.now());
      selectors.add(`${namespace} ${labelSelector}`);
      return answer(script.list(ts.now()));
    },
    delete: (namespace, name, rv) => {
      deletes.push(`${ts.now()} ${namespace}/${name}@${rv}`);
      return answer(script.delete?.(ts.now(), name, rv) ?? E.right({}));
    },
  };
  return { api, lists, selectors, deletes };
}

const show = (p: PeerSet): string =>
  [
    p.members.map((m) => `${m.identity}${m.weight === 1 ? '' : `*${m.weight}`}${m.acknowledgedView === undefined ? '' : `@${m.acknowledgedView}`}`).join(','),
    ...p.problems.map((x) => (x.type === 'list-failed' ? `!list ${x.error.type}` : `!gc ${x.lease} ${x.error.type}`)),
  ].join(' ');

function peers(ts: TestScheduler, api: PeerLeaseApi, extra: { self?: string; requestTimeoutMs?: number } = {}): Observable<string> {
  return observePeers({ api, namespace: 'ops', prefix: 'ctl', timing, clock: () => ts.now(), scheduler: ts, ...extra }).pipe(map(show));
}

describe('observePeers (virtual time)', () => {
  it('should list by the replica label, show peers as they appear, and expire each leaseDuration after its last change', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const gone = new Set<string>();
      const { api, lists, selectors, deletes } = fakeApi(ts, {
        // a renews once (seen at 3), b appears at 6; neither changes again, and each is deleted once expired.
        list: (t) => E.right([lease('ctl-a', 'a', t < 3 ? '1' : '2'), ...(t >= 6 ? [lease('ctl-b', 'b', '10')] : [])].filter((l) => !gone.has(l.metadata.name ?? ''))),
        delete: (_t, name) => {
          gone.add(name);
          return E.right({});
        },
      });
      // a: 0; a,b: 6; a expires 3 + 10 = 13; b expires 6 + 10 = 16.
      expectObservable(peers(ts, api), '^ 30ms !').toBe('a 5ms b 6ms c 2ms d', { a: 'a', b: 'a,b', c: 'b', d: '' });
      ts.flush();
      expect(lists).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
      expect(deletes).toEqual(['15 ops/ctl-a@2', '18 ops/ctl-b@10']);
      expect([...selectors]).toEqual(['ops rxfleet.io/replicas=ctl']);
    });
  });

  it('should emit acknowledged views and weights as they change, drop released and deleting Leases at once, and keep a vanished one until it expires', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const { api } = fakeApi(ts, {
        list: (t) =>
          E.right([
            lease('ctl-a', 'a', t < 3 ? '1' : '2', { 'rxfleet.io/acknowledged-view': t < 3 ? 'v1' : 'v2' }),
            lease('ctl-b', 'b', '5', { 'rxfleet.io/weight': '2' }),
            lease('ctl-c', 'c', '6', { 'rxfleet.io/weight': 'heavy' }),
            lease('ctl-d', '', '7'),
            lease('ctl-e', 'e', '8', {}, true),
            ...(t < 6 ? [lease('ctl-f', 'f', t < 3 ? '9' : '10')] : []),
          ]),
      });
      // f renewed at 3 and vanished at 6: still f's until 13, like a (renewed at 3); b and c expire at 10.
      expectObservable(peers(ts, api), '^ 14ms !').toBe('a 2ms b 6ms c 2ms d', { a: 'a@v1,b*2,c,f', b: 'a@v2,b*2,c,f', c: 'a@v2,f', d: '' });
    });
  });

  it('should keep the last observation through failed and hung LISTs, report them, and still expire members on time', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const { api, lists } = fakeApi(ts, {
        list: (t) =>
          t === 0 ? E.right([lease('ctl-a', 'a', '1')])
          : t < 9 ? 'hang'
          : t < 12 ? E.left(fail('ClusterUnreachable'))
          : E.right([lease('ctl-a', 'a', t < 15 ? '1' : '2')]),
      });
      // 8: the LIST of 3 times out (5 ms); 9: unreachable; 10: a expires (0 + 10) although no LIST
      // said anything new; 12: a LIST works but a has not changed: still expired; 15: a renewed.
      expectObservable(peers(ts, api, { requestTimeoutMs: 5 }), '^ 16ms !').toBe('a 7ms b c d 1ms e 2ms f', {
        a: 'a',
        b: 'a !list Timeout',
        c: 'a !list ClusterUnreachable',
        d: ' !list ClusterUnreachable',
        e: '',
        f: 'a',
      });
      ts.flush();
      // One LIST at a time: the poll at 6 fell inside the hung one.
      expect(lists).toEqual([0, 3, 9, 12, 15]);
    });
  });

  it('should delete an expired Lease at the next LIST, with its resourceVersion, and never its own', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const self = memberLeaseName('ctl', 's');
      let xDeleted = false;
      const { api, deletes } = fakeApi(ts, {
        list: () => E.right([lease(self, 's', '5'), ...(xDeleted ? [] : [lease('ctl-x', 'x', '1')])]),
        delete: () => {
          xDeleted = true;
          return E.right({});
        },
      });
      // Both expire at 10; x is deleted at the first LIST after that, at 12 (s, our own, never).
      expectObservable(peers(ts, api, { self: 's' }), '^ 60ms !').toBe('a 9ms b', { a: 's,x', b: '' });
      ts.flush();
      expect(deletes).toEqual(['12 ops/ctl-x@1']);
    });
  });

  it('should keep a vanished Lease live until it expires, never delete it, report a failed deletion and retry it, and accept NotFound', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const { api, deletes } = fakeApi(ts, {
        list: (t) => E.right([...(t < 18 ? [lease('ctl-x', 'x', '1')] : []), ...(t < 6 ? [lease('ctl-y', 'y', t < 3 ? '2' : '4')] : [])]),
        delete: (t) => E.left(fail(t === 12 ? 'Forbidden' : 'NotFound')),
      });
      // y renewed at 3 and vanished at 6: its holder may still write, so it is live until 13, and
      // then forgotten, never deleted. x expires at 10: 403 at 12 (reported), 404 at 15 (gone:
      // forgotten, the report with it).
      expectObservable(peers(ts, api), '^ 45ms !').toBe('a 9ms b 1ms c d 1ms e', { a: 'x,y', b: 'y', c: 'y !gc ctl-x Forbidden', d: ' !gc ctl-x Forbidden', e: '' });
      ts.flush();
      expect(deletes).toEqual(['12 ops/ctl-x@1', '15 ops/ctl-x@1']);
    });
  });

  it('should keep a peer whose Lease changed just before the deletion (Conflict), and see it live again', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      let renewed = false;
      const { api, deletes } = fakeApi(ts, {
        list: () => E.right([lease('ctl-y', 'y', renewed ? '2' : '1')]),
        delete: () => {
          renewed = true;
          return E.left(fail('Conflict'));
        },
      });
      // Expired at 10, delete refused at 12 (renewed meanwhile), seen changed at 15, expired again
      // at 25 and refused again at 27 (the fake answers Conflict to every delete).
      expectObservable(peers(ts, api), '^ 28ms !').toBe('a 9ms b 4ms c 9ms d', { a: 'y', b: '', c: 'y', d: '' });
      ts.flush();
      expect(deletes).toEqual(['12 ops/ctl-y@1', '27 ops/ctl-y@2']);
    });
  });
});
