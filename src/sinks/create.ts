// Create: POST an object that must not exist yet. AlreadyExists comes back as a typed error; use
// `apply` when "create or bring up to date" is what you mean.
import type { Observable, OperatorFunction } from 'rxjs';
import { map, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import { describe, keyFor } from './read.js';
import type { WriteOutcome } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * One create.
 *
 * @example
 * ```ts
 * const w: CreateWrite<ConfigMap> = { cluster, resource: configMaps, object: { metadata: { name: 'a', namespace: 'default' } } };
 * ```
 */
export interface CreateWrite<T extends KubeObject = KubeObject> {
  /** The cluster to create the object in: not necessarily the one the event came from (fan-out). */
  readonly cluster: ClusterName;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** The object; `metadata.generateName` may stand in for `metadata.name`. */
  readonly object: T;
  /** Validate on the server and report what would change, persisting nothing (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

/**
 * Creates an object in a cluster of the fleet (recorded under the context's field manager).
 *
 * @example
 * ```ts
 * import { create } from 'rxfleet/sinks';
 * create(ctx, { cluster, resource: configMaps, object: { metadata: { generateName: 'job-', namespace: 'default' } } })
 *   .subscribe((o) => console.log(E.isRight(o) ? o.right.object?.metadata.name : o.left.type));
 * ```
 * @param ctx - the sink context.
 * @param write - target cluster, resource and object.
 * @returns one outcome, then completes; never errors.
 */
export function create<T extends KubeObject>(ctx: SinkContext, write: CreateWrite<T>): Observable<WriteOutcome<T>> {
  const key = keyFor(write.cluster, write.resource, write.object);
  const named = key.name !== '' || (write.object.metadata.generateName ?? '') !== '';
  if (!named || (write.resource.namespaced && key.namespace === '')) {
    return of(writeFailed<T>('create', key, refusal('Invalid', key, `create needs metadata.name or generateName${write.resource.namespaced ? ' and metadata.namespace' : ''}`), 0));
  }
  const dryRun = write.dryRun ?? false;
  return send(ctx, key.cluster, `create ${describe(write.resource, key)}`, (c) => c.create(write.resource, write.object, { fieldManager: ctx.fieldManager, dryRun })).pipe(
    map(({ result, attempts }) => {
      if (E.isLeft(result)) return writeFailed<T>('create', key, result.left, attempts);
      // A generated name is only known now: report the key of what was created.
      const made = keyFor(write.cluster, write.resource, result.right);
      return written('create', made, { changed: true, object: result.right, attempts, dryRun });
    }),
  );
}

/**
 * The operator form of {@link create}.
 *
 * @example
 * ```ts
 * jobs.pipe(createEach(ctx)).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function createEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<CreateWrite<T>, WriteOutcome<T>> {
  return writeEach((w: CreateWrite<T>) => create(ctx, w), config);
}
