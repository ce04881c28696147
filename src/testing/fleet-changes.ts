// What another actor does to an in-memory cluster while a controller runs in virtual time: an
// object put (created or replaced, status included) or deleted, as marbles per cluster.
import type { Observable } from 'rxjs';
import { ignoreElements, tap } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { InMemoryFleet } from './in-memory-fleet.js';

/**
 * A change another actor makes to an in-memory cluster: an object created or replaced (status
 * included), or deleted (finalizers honoured).
 *
 * @example
 * ```ts
 * const changes: Record<string, FleetChange> = { a: putChange(configMaps, cm), d: deleteChange(configMaps, 'default/web') };
 * ```
 */
export type FleetChange =
  | {
      /** Create or replace the object. */
      readonly type: 'put';
      /** Its resource. */
      readonly resource: ResourceDescriptor;
      /** The object (name and namespace in its metadata). */
      readonly object: KubeObject;
    }
  | {
      /** Delete the object. */
      readonly type: 'delete';
      /** Its resource. */
      readonly resource: ResourceDescriptor;
      /** `namespace/name`, or `name` when cluster-scoped. */
      readonly ref: string;
    };

/**
 * The change that creates or replaces `object`.
 *
 * @example
 * ```ts
 * hot('-a', { a: putChange(configMaps, { metadata: { name: 'web', namespace: 'default' }, data: { v: '2' } }) });
 * ```
 * @param resource - the object's resource.
 * @param object - the object.
 * @returns the change.
 */
export function putChange<T extends KubeObject>(resource: ResourceDescriptor<T>, object: T): FleetChange {
  return Object.freeze({ type: 'put', resource, object });
}

/**
 * The change that deletes an object.
 *
 * @example
 * ```ts
 * hot('--d', { d: deleteChange(configMaps, 'default/web') });
 * ```
 * @param resource - the object's resource.
 * @param ref - `namespace/name`, or `name` when cluster-scoped.
 * @returns the change.
 */
export function deleteChange(resource: ResourceDescriptor, ref: string): FleetChange {
  return Object.freeze({ type: 'delete', resource, ref });
}

/**
 * Applies each cluster's changes to the fleet as they come; emits nothing.
 *
 * @example
 * ```ts
 * merge(outcomes, ...applyChanges(fleet, { east: hot('-a', { a: putChange(configMaps, cm) }) }));
 * ```
 * @param fleet - the in-memory fleet.
 * @param changes - the changes per cluster name.
 * @returns one silent stream per cluster.
 * @throws ConfigError when `changes` names a cluster the fleet does not have.
 */
export function applyChanges(fleet: InMemoryFleet, changes: Readonly<Record<string, Observable<FleetChange>>>): Observable<never>[] {
  for (const name of Object.keys(changes)) fleet.cluster(name);
  return Object.entries(changes).map(([cluster, stream]) =>
    stream.pipe(
      tap((ch) => {
        if (ch.type === 'put') fleet.put(cluster, ch.resource, ch.object);
        else fleet.delete(cluster, ch.resource, ch.ref);
      }),
      ignoreElements(),
    ),
  );
}
