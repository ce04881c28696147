// Watch events folded by object: the whole set after each listing, then one object per change
// (objectChanges), restated on a schedule where candidates depend on the clock (restateOn).
// Providers compute their desired clusters from these, object by object (desired-per-object.ts).
import type { MonoTypeOperatorFunction, OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';

/** `namespace/name` of an object. @example `objectId(secret) // 'fleet/east'` @param o - the object. @returns its id. */
export function objectId(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/**
 * One step of a watch folded by object id (`namespace/name`): the whole set after each complete
 * listing (so a relist that lost objects removes them), then one object set or gone per later
 * change. Nothing is emitted before the first listing is done, so a provider never disengages what
 * it has not seen; changes seen while a relist runs are covered by its result.
 *
 * @example
 * ```ts
 * const step: ObjectChange<Secret> = { type: 'gone', id: 'fleet/east' };
 * ```
 */
export type ObjectChange<T> =
  | {
      /** A listing ended: these are all the objects now. */
      readonly type: 'listed';
      /** Every object, by `namespace/name`. */
      readonly all: ReadonlyMap<string, T>;
    }
  | {
      /** One object was added or changed. */
      readonly type: 'set';
      /** Its `namespace/name`. */
      readonly id: string;
      /** Its new state. */
      readonly object: T;
    }
  | {
      /** One object was deleted. */
      readonly type: 'gone';
      /** Its `namespace/name`. */
      readonly id: string;
    };

/**
 * Folds a watch into {@link ObjectChange}s: O(1) per event after the listing, whatever the number
 * of objects (the per-object path a provider needs to engage thousands of clusters without
 * rebuilding its desired set on every change).
 *
 * @example
 * ```ts
 * watchEvents(hub, namespaces).pipe(objectChanges()).subscribe((c: ObjectChange<Namespace>) => console.log(c.type)); // 'listed', then 'set' / 'gone'
 * ```
 * @returns the operator.
 */
export function objectChanges<T extends KubeObject>(): OperatorFunction<WatchEvent<T>, ObjectChange<T>> {
  return (source) =>
    new Observable<ObjectChange<T>>((subscriber) => {
      let listing: Map<string, T> | undefined;
      let listed = false;
      return source.subscribe({
        next: (ev) => {
          switch (ev.type) {
            case 'initStarted':
              listing = new Map<string, T>();
              return;
            case 'initApply':
              listing?.set(objectId(ev.object), ev.object);
              return;
            case 'initDone': {
              const all = listing ?? new Map<string, T>();
              listing = undefined;
              listed = true;
              subscriber.next({ type: 'listed', all });
              return;
            }
            case 'applied':
              if (listed && listing === undefined) subscriber.next({ type: 'set', id: objectId(ev.object), object: ev.object });
              return;
            case 'deleted':
              if (listed && listing === undefined) subscriber.next({ type: 'gone', id: objectId(ev.object) });
              return;
          }
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

/**
 * Folds one {@link ObjectChange} into the objects known so far: a listing replaces them (a copy of
 * its own, edited in place from then on), a change sets or deletes one object; before the first
 * listing nothing is known and changes are dropped.
 *
 * @example
 * ```ts
 * let all: Map<string, Secret> | undefined;
 * watch.pipe(objectChanges<Secret>()).subscribe((c: ObjectChange<Secret>) => (all = foldChange(all, c)));
 * ```
 * @param all - the objects known so far, by `namespace/name` (edited in place).
 * @param c - the change.
 * @returns the objects known now.
 */
export function foldChange<T>(all: Map<string, T> | undefined, c: ObjectChange<T>): Map<string, T> | undefined {
  if (c.type === 'listed') return new Map(c.all);
  if (c.type === 'set') all?.set(c.id, c.object);
  else all?.delete(c.id);
  return all;
}

/**
 * Passes {@link ObjectChange}s through, and restates the whole set (`listed`) at each tick once the
 * first listing is in: for a provider whose candidates also depend on the clock (a profile's health
 * re-checked on a schedule). O(1) per change; O(objects) per tick.
 *
 * @example
 * ```ts
 * watch.pipe(objectChanges(), restateOn(timer(30_000, 30_000)));
 * ```
 * @param ticks - when to restate.
 * @returns the operator.
 */
export function restateOn<T>(ticks: Observable<unknown>): MonoTypeOperatorFunction<ObjectChange<T>> {
  return (source) =>
    new Observable<ObjectChange<T>>((subscriber) => {
      let all: Map<string, T> | undefined;
      const tickSub = ticks.subscribe(() => {
        if (all !== undefined) subscriber.next({ type: 'listed', all: new Map(all) });
      });
      const sub = source.subscribe({
        next: (c) => {
          all = foldChange(all, c);
          subscriber.next(c);
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          subscriber.complete();
        },
      });
      return () => {
        tickSub.unsubscribe();
        sub.unsubscribe();
      };
    });
}
