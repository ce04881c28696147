// An in-memory Lease API for marble tests: Leases in a Map with resourceVersion preconditions like
// the API server's (and its answer to an update of a missing Lease), answers as Observables (so they live in virtual time), a switch to fail or
// hang every call, and a log of the calls with the virtual time each was made at.
import { defer, NEVER, of } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import { clusterName } from '../../src/core/cluster.js';
import type { KubeError, KubeErrorType } from '../../src/core/errors.js';
import { kubeError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/object.js';
import { E } from '../../src/internal/fp.js';
import type { Either } from '../../src/internal/fp.js';
import type { LeaseApi } from '../../src/runtime/ha/lease-api.js';

export const home = clusterName('home');

export interface FakeLeases {
  readonly api: LeaseApi;
  /** `METHOD name @time`, in call order. */
  readonly calls: string[];
  /** 'ok' answers, 'fail' answers 503, 'hang' never answers. */
  mode: 'ok' | 'fail' | 'hang';
  /**
   * An update of a missing Lease: `server` as kube-apiserver (it creates it, but a body naming a
   * uid fails that precondition: 409), `create` whatever the body says, `notfound` 404.
   */
  putMissing: 'server' | 'create' | 'notfound';
  /** The stored Lease, if any. */
  read(name: string): Lease | undefined;
  /** Another replica writes the Lease as `holder` (a renew when it already holds it). */
  writeAs(name: string, holder: string, durationSeconds?: number): void;
  /** Someone deletes the Lease (kubectl delete lease). */
  remove(name: string): void;
}

export function fakeLeases(scheduler: SchedulerLike, namespace = 'ops'): FakeLeases {
  const store = new Map<string, Lease>();
  let rv = 0;
  let uid = 0;
  const fail = (type: KubeErrorType, what: string, details?: { kind: string }): Either<KubeError, never> =>
    E.left(kubeError(type, home, what, details === undefined ? {} : { details }));
  const stamp = (l: Lease, fresh: boolean): Lease => {
    rv += 1;
    const old = store.get(l.metadata.name ?? '');
    uid += fresh ? 1 : 0;
    const stored: Lease = { ...l, metadata: { ...l.metadata, resourceVersion: String(rv), uid: fresh ? `uid-${uid}` : (old?.metadata.uid ?? '') } };
    store.set(l.metadata.name ?? '', stored);
    return stored;
  };
  const calls: string[] = [];
  let mode: FakeLeases['mode'] = 'ok';
  let putMissing: FakeLeases['putMissing'] = 'server';
  const answer = <T>(what: string, f: () => Either<KubeError, T>): Observable<Either<KubeError, T>> =>
    defer(() => {
      calls.push(`${what} @${scheduler.now()}`);
      if (mode === 'hang') return NEVER;
      return of(mode === 'fail' ? fail('Transient', '503 from a test') : f());
    });
  const api: LeaseApi = {
    cluster: home,
    get: (_ns, name) => answer(`GET ${name}`, () => {
      const l = store.get(name);
      return l === undefined ? fail('NotFound', 'leases not found', { kind: 'leases' }) : E.right(l);
    }),
    list: () => answer('LIST', () => E.right({ metadata: {}, items: [...store.values()] })),
    create: (l) => answer(`POST ${l.metadata.name ?? ''}`, () => (store.has(l.metadata.name ?? '') ? fail('AlreadyExists', 'exists') : E.right(stamp(l, true)))),
    replace: (l) => answer(`PUT ${l.metadata.name ?? ''}`, () => {
      const old = store.get(l.metadata.name ?? '');
      if (old === undefined) {
        if (putMissing === 'notfound') return fail('NotFound', 'leases not found', { kind: 'leases' });
        if (putMissing === 'server' && l.metadata.uid !== undefined) return fail('Conflict', `Precondition failed: UID in precondition: ${l.metadata.uid}, UID in object meta: `);
        return E.right(stamp(l, true));
      }
      return old.metadata.resourceVersion === l.metadata.resourceVersion ? E.right(stamp(l, false)) : fail('Conflict', 'stale resourceVersion');
    }),
    delete: (_ns, name, opts) => answer(`DELETE ${name}`, () => {
      const old = store.get(name);
      if (old === undefined) return fail('NotFound', 'leases not found', { kind: 'leases' });
      if (opts?.uid !== undefined && opts.uid !== old.metadata.uid) return fail('Conflict', 'uid precondition');
      store.delete(name);
      return E.right({});
    }),
  };
  return {
    api,
    calls,
    get mode() {
      return mode;
    },
    set mode(m) {
      mode = m;
    },
    get putMissing() {
      return putMissing;
    },
    set putMissing(p) {
      putMissing = p;
    },
    read: (name) => store.get(name),
    remove: (name) => {
      store.delete(name);
    },
    writeAs(name, holder, durationSeconds = 15) {
      const old = store.get(name);
      stamp({ metadata: { name, namespace }, spec: { ...old?.spec, holderIdentity: holder, leaseDurationSeconds: durationSeconds } }, old === undefined);
    },
  };
}
