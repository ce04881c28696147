// Status up: the service copy's whole status becomes the consumer object's status, through the
// status subresource of the consumer's own workspace. Only from a copy whose back-reference names
// exactly that consumer object (the tenant check): a copy pointing elsewhere is never read into a
// workspace, whatever its name.
import { isDeepStrictEqual } from 'node:util';
import type { Observable } from 'rxjs';
import { EMPTY, of } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { SourceIdentity } from '../sinks/back-reference.js';
import { readBackReference } from '../sinks/back-reference.js';
import type { SinkContext } from '../sinks/context.js';
import { patchStatus } from '../sinks/patch-status.js';
import type { WriteOutcome } from '../sinks/result.js';
import { refusal, writeFailed } from '../sinks/result.js';
import type { PublishedPlan } from './plan.js';

type Json = Readonly<Record<string, unknown>>;

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON merge patch (RFC 7386) that turns `current` into `desired`: changed fields set, fields
 * `desired` lacks set to `null`, maps diffed field by field, anything else replaced whole.
 * `undefined` when they are equal.
 *
 * @example
 * ```ts
 * mergePatchTo({ phase: 'Pending', ready: false }, { phase: 'Ready' }); // { phase: 'Ready', ready: null }
 * ```
 * @param current - the value now.
 * @param desired - the value wanted.
 * @returns the patch, or `undefined`.
 */
export function mergePatchTo(current: unknown, desired: unknown): unknown {
  if (isDeepStrictEqual(current, desired)) return undefined;
  if (!isMap(current) || !isMap(desired)) return desired ?? null;
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(desired)) {
    const d = mergePatchTo(current[k], v);
    if (d !== undefined) patch[k] = d;
  }
  for (const k of Object.keys(current)) if (!Object.hasOwn(desired, k)) patch[k] = null;
  return patch;
}

/**
 * The tenant check: `undefined` when `copy`'s back-reference names exactly `source` (cluster,
 * resource, namespace, name and uid), else why not, naming both sides.
 *
 * @example
 * ```ts
 * const problem = tenantProblem(copy, sourceIdentity(req.cluster, plan.kcp, obj));
 * if (problem !== undefined) log.error(problem);
 * ```
 * @param copy - the service-side object.
 * @param source - the consumer object it must belong to.
 * @returns the refusal in words, or `undefined`.
 */
export function tenantProblem(copy: KubeObject, source: SourceIdentity): string | undefined {
  const ref = readBackReference(copy);
  const where = `${copy.metadata.namespace ?? ''}/${copy.metadata.name ?? ''}`;
  const self = `${source.cluster}/${source.namespace}/${source.name} (uid ${source.uid})`;
  if (ref === undefined) return `service object ${where} carries no valid back-reference, so it cannot belong to ${self}`;
  if (ref.cluster !== source.cluster || ref.resource !== source.resource || ref.namespace !== source.namespace || ref.name !== source.name || ref.uid !== source.uid) {
    return `service object ${where} belongs to ${ref.cluster}/${ref.namespace}/${ref.name} (${ref.resource}, uid ${ref.uid}), not to ${self}`;
  }
  return undefined;
}

/**
 * A refused write, as a sink outcome (terminal: nothing changes until one side does).
 *
 * @example
 * ```ts
 * const outcome: WriteOutcome = refused('patchStatus', req.key, 'tenant check: …');
 * ```
 * @param verb - the write that was not made.
 * @param key - the object it would have written.
 * @param why - the reason, in words.
 * @returns a Left outcome.
 */
export function refused(verb: 'apply' | 'patchStatus', key: ObjectKey, why: string): WriteOutcome {
  return writeFailed(verb, key, refusal('Forbidden', key, `sync refused: ${why}`), 0);
}

/**
 * Syncs status up, when the plan syncs it (status subresource, `syncUp.status` not false): the
 * copy's whole status replaces the consumer's, by one merge patch of the difference; nothing is
 * sent when they are equal or the copy has no status yet. A copy failing the tenant check is
 * refused with an outcome naming both objects.
 *
 * @example
 * ```ts
 * syncUp(ctx.sinks, plan, req.key, obj, copy, sourceIdentity(req.cluster, plan.kcp, obj)).pipe(toAction());
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param key - the consumer object's key (its workspace is the only place written).
 * @param consumer - the consumer object as cached.
 * @param copy - the service copy, as cached or as the apply answered.
 * @param source - the consumer object's identity.
 * @returns the patch's outcome, a refusal, or nothing.
 */
export function syncUp(sinks: SinkContext, plan: PublishedPlan, key: ObjectKey, consumer: KubeObject, copy: KubeObject | undefined, source: SourceIdentity): Observable<WriteOutcome> {
  if (!plan.statusSubresource || plan.published.syncUp?.status === false || copy === undefined) return EMPTY;
  const problem = tenantProblem(copy, source);
  if (problem !== undefined) return of(refused('patchStatus', key, `tenant check for ${formatKey(key)}: ${problem}`));
  const want = (copy as KubeObject & { readonly status?: unknown }).status;
  if (want === undefined) return EMPTY;
  const patch = mergePatchTo((consumer as KubeObject & { readonly status?: unknown }).status ?? {}, want);
  if (patch === undefined) return EMPTY;
  return patchStatus(sinks, { key, resource: plan.kcp, status: patch, current: consumer });
}
