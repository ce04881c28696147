// The desired set of a provider with one candidate per watched object (a Namespace, a Secret), kept
// object by object: after a listing the whole set is computed once, then each object's change
// recomputes that object's candidate and tells the engine only the names it touched. Two objects
// may claim one cluster name: the latest claim wins, and an earlier one takes over when it goes.
import type { OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import type { Candidate, DesiredChange } from './candidates.js';
import type { ObjectChange } from './objects.js';

/** Ids claiming each name, latest last, and the candidate of each claiming id. */
interface Claims {
  readonly byId: Map<string, Candidate>;
  readonly byName: Map<ClusterName, string[]>;
}

const claim = (s: Claims, id: string, c: Candidate): void => {
  s.byId.set(id, c);
  const ids = s.byName.get(c.name);
  if (ids === undefined) s.byName.set(c.name, [id]);
  else ids.push(id);
};

/** Drops `id`'s claim; returns the name it claimed, if any. */
const release = (s: Claims, id: string): ClusterName | undefined => {
  const c = s.byId.get(id);
  if (c === undefined) return undefined;
  s.byId.delete(id);
  const ids = s.byName.get(c.name) ?? [];
  const rest = ids.filter((x) => x !== id);
  if (rest.length === 0) s.byName.delete(c.name);
  else s.byName.set(c.name, rest);
  return c.name;
};

/** The candidate that holds `name` now (the latest claim), if any. */
const holder = (s: Claims, name: ClusterName): Candidate | undefined => {
  const ids = s.byName.get(name);
  const last = ids?.[ids.length - 1];
  return last === undefined ? undefined : s.byId.get(last);
};

/**
 * Turns a watch's {@link ObjectChange}s into {@link DesiredChange}s, given each object's candidate
 * (`undefined`: the object wants no cluster, e.g. it is being deleted). The objects may be joined
 * ones (a Cluster API Cluster with its kubeconfig Secret). A listing sends the whole
 * set (`all`); a later change of one object sends only the names it touched (`some`): O(1) per
 * change however many objects there are.
 *
 * @example
 * ```ts
 * managementWatch(hub, secrets, options, say).pipe(
 *   objectChanges(),
 *   desiredPerObject((s: Secret) => secretCandidate(s, 'kubeconfig')),
 *   engageChanges(cfg, say),
 * );
 * ```
 * @param candidateOf - the candidate of one object, given its `namespace/name`.
 * @returns the operator.
 */
export function desiredPerObject<T>(candidateOf: (o: T, id: string) => Candidate | undefined): OperatorFunction<ObjectChange<T>, DesiredChange> {
  return (source) =>
    new Observable<DesiredChange>((subscriber) => {
      let s: Claims = { byId: new Map(), byName: new Map() };
      const of = (name: ClusterName, set: Candidate[], removed: ClusterName[]): void => {
        const c = holder(s, name);
        if (c === undefined) removed.push(name);
        else set.push(c);
      };
      return source.subscribe({
        next: (change) => {
          if (change.type === 'listed') {
            s = { byId: new Map(), byName: new Map() };
            for (const [id, o] of change.all) {
              const c = candidateOf(o, id);
              if (c !== undefined) claim(s, id, c);
            }
            const desired = new Map<ClusterName, Candidate>();
            for (const name of s.byName.keys()) {
              const c = holder(s, name);
              if (c !== undefined) desired.set(name, c);
            }
            subscriber.next({ type: 'all', desired });
            return;
          }
          const touched = new Set<ClusterName>();
          const was = release(s, change.id);
          if (was !== undefined) touched.add(was);
          if (change.type === 'set') {
            const c = candidateOf(change.object, change.id);
            if (c !== undefined) {
              claim(s, change.id, c);
              touched.add(c.name);
            }
          }
          if (touched.size === 0) return;
          const set: Candidate[] = [];
          const removed: ClusterName[] = [];
          for (const name of touched) of(name, set, removed);
          subscriber.next({ type: 'some', set, removed });
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          subscriber.complete();
        },
      });
    });
}
