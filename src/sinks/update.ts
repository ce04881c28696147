// Conflict-safe update: read, change the object with an immer recipe, PUT it with the read
// resourceVersion, and on 409 re-read and re-run the recipe. The recipe sees the latest object
// every time, so concurrent writers never lose each other's changes.
import type { Draft } from 'immer';
import { produce } from 'immer';
import type { Observable, OperatorFunction } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { Mutation } from './conflict-retry.js';
import { readModifyWrite } from './conflict-retry.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import type { WriteOutcome } from './result.js';
import { refusal } from './result.js';

/**
 * Changes a draft of the current object in place (immer). It may run several times (once per
 * Conflict), each time on a fresh read, so it must depend only on the draft it is given.
 *
 * @example
 * ```ts
 * const bump: UpdateRecipe<ConfigMap> = (cm) => { cm.data = { ...cm.data, n: String(Number(cm.data?.n ?? 0) + 1) }; };
 * ```
 */
export type UpdateRecipe<T extends KubeObject> = (draft: Draft<T>) => void;

/**
 * One conflict-safe update.
 *
 * @example
 * ```ts
 * const w: UpdateWrite<ConfigMap> = { key: objectKey(cluster, 'default', 'counter'), resource: configMaps, recipe: bump };
 * ```
 */
export interface UpdateWrite<T extends KubeObject = KubeObject> {
  /** The object, with the cluster to write to. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** The change, made to a draft of the latest object; run again on a fresh read after each Conflict. */
  readonly recipe: UpdateRecipe<T>;
  /**
   * The object as last seen (e.g. from a cache): the recipe first runs on it, saving the GET; a
   * stale one costs a 409 and a fresh read, never a lost write. Without it: GET, then PUT.
   */
  readonly current?: T | undefined;
  /** Write through the status subresource (a PUT of status). */
  readonly subresource?: 'status';
  /** Validate on the server and report what would change, persisting nothing (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

/**
 * Turns a recipe into a read-modify-write step: no change from the recipe means no write, and a
 * recipe that throws is reported as `RecipeFailed` instead of breaking the stream.
 *
 * @example
 * ```ts
 * readModifyWrite(ctx, configMaps, key, recipeStep(key, bump));
 * ```
 * @param key - the object (for the error message).
 * @param recipe - the change.
 * @returns the step.
 */
export function recipeStep<T extends KubeObject>(key: ObjectKey, recipe: UpdateRecipe<T>): (current: T) => Mutation<T> {
  return (current) => {
    let next: T;
    try {
      next = produce(current, recipe);
    } catch (err) {
      return { type: 'refuse', error: refusal('RecipeFailed', key, `update recipe threw: ${err instanceof Error ? err.message : String(err)}`) };
    }
    // immer returns the very same object when the recipe changed nothing.
    return next === current ? { type: 'unchanged' } : { type: 'write', object: next };
  };
}

/**
 * Updates an object with a recipe, retrying on Conflict as the context says (default: client-go's
 * `retry.DefaultRetry`, 5 attempts 10 ms apart with 10% jitter). Requests: GET then PUT, or the PUT
 * alone when `current` is given; each Conflict adds a GET and a PUT. The outcome reports the attempts;
 * a recipe that changes nothing writes nothing and reports `changed: false`. A missing object is
 * `NotFound`; create it with `apply` or `create` instead.
 *
 * @example
 * ```ts
 * import { update } from 'rxfleet/sinks';
 * update(ctx, {
 *   key: objectKey(clusterName('east'), 'default', 'counter'),
 *   resource: configMaps,
 *   recipe: (cm) => { cm.data = { n: String(Number(cm.data?.n ?? '0') + 1) }; },
 * }).subscribe((o) => console.log(E.isRight(o) ? `${o.right.attempts} attempts` : o.left.message));
 * ```
 * @param ctx - the sink context.
 * @param write - the object, its resource and the recipe.
 * @returns one outcome, then completes; never errors.
 */
export function update<T extends KubeObject>(ctx: SinkContext, write: UpdateWrite<T>): Observable<WriteOutcome<T>> {
  return readModifyWrite(ctx, write.resource, write.key, recipeStep(write.key, write.recipe), {
    ...(write.dryRun === undefined ? {} : { dryRun: write.dryRun }),
    ...(write.subresource === undefined ? {} : { subresource: write.subresource }),
    current: write.current,
  });
}

/**
 * The operator form of {@link update}. Two updates of the same object in flight at once are safe
 * (they conflict and retry), but a keyed reconcile upstream avoids the wasted round trips.
 *
 * @example
 * ```ts
 * bumps.pipe(updateEach(ctx, { concurrency: 4 })).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function updateEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<UpdateWrite<T>, WriteOutcome<T>> {
  return writeEach((w: UpdateWrite<T>) => update(ctx, w), config);
}
