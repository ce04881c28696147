// Watch events folded into "every object now", the shape providers compute desired sets from.
import type { OperatorFunction } from 'rxjs';
import { filter, map, scan } from 'rxjs';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';

interface Fold<T> {
  readonly ready: Map<string, T>;
  readonly listing: Map<string, T> | undefined;
  readonly emit: boolean;
}

/** `namespace/name` of an object. @example `objectId(secret) // 'fleet/east'` @param o - the object. @returns its id. */
export function objectId(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/**
 * Folds a watch into snapshots of every object, by `namespace/name`: one after each complete
 * listing (so a relist that lost objects removes them) and one after each later change. Nothing is
 * emitted before the first listing is done, so a provider never disengages what it has not seen.
 *
 * @example
 * ```ts
 * watch(management, secrets, { namespace: 'fleet' })
 *   .pipe(snapshots(), map((all: ReadonlyMap<string, Secret>) => [...all.keys()]))
 *   .subscribe((ids) => console.log(ids)); // ['fleet/east-kubeconfig', ...]: after the listing, then after each change
 * ```
 * @returns the operator.
 */
export function snapshots<T extends KubeObject>(): OperatorFunction<WatchEvent<T>, ReadonlyMap<string, T>> {
  return (source) =>
    source.pipe(
      scan<WatchEvent<T>, Fold<T>>(
        (s, ev) => {
          switch (ev.type) {
            case 'initStarted':
              return { ready: s.ready, listing: new Map<string, T>(), emit: false };
            case 'initApply':
              s.listing?.set(objectId(ev.object), ev.object);
              return { ...s, emit: false };
            case 'initDone':
              return { ready: s.listing ?? new Map<string, T>(), listing: undefined, emit: true };
            case 'applied': {
              const ready = new Map(s.ready).set(objectId(ev.object), ev.object);
              return { ready, listing: s.listing, emit: s.listing === undefined };
            }
            case 'deleted': {
              const ready = new Map(s.ready);
              ready.delete(objectId(ev.object));
              return { ready, listing: s.listing, emit: s.listing === undefined };
            }
          }
        },
        { ready: new Map<string, T>(), listing: undefined, emit: false },
      ),
      filter((s) => s.emit),
      map((s): ReadonlyMap<string, T> => s.ready),
    );
}
