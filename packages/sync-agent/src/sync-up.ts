// Status up: the service copy's whole status becomes the consumer object's status, through the
// status subresource of the consumer's own workspace, with the agent's condition when it refused
// something. Only from a copy whose back-reference names exactly that consumer object (the tenant
// check): a copy pointing elsewhere is never read into a workspace, whatever its name.
import type { Observable } from 'rxjs';
import { EMPTY } from 'rxjs';
import type { ObjectKey } from 'rxfleet';
import { formatKey } from 'rxfleet';
import type { KubeObject } from 'rxfleet';
import type { SourceIdentity } from 'rxfleet/sinks';
import type { SinkContext } from 'rxfleet/sinks';
import { patch as patchSink } from 'rxfleet/sinks';
import type { WriteOutcome } from 'rxfleet/sinks';
import { refusal, writeFailed } from 'rxfleet/sinks';
import type { Refusal } from './condition.js';
import { nextCondition, withCondition } from './condition.js';
import { mutate } from './mutation.js';
import { ownershipProblem } from './ownership.js';
import type { PublishedPlan } from './plan.js';

// From getBuiltinModule, not `import`: see rxfleet's src/client/h2-pool.ts.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

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
 * resource, namespace, name and uid), else why not, naming both sides (for the agent's log).
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
  return ownershipProblem('service object', copy, source, 'refuse')?.detail;
}

/**
 * The tenant check of a service copy before its status is read: `undefined` when the copy's
 * back-reference names exactly `source` (cluster, resource, namespace, name and uid), else the
 * refusal, naming both sides in its detail and nothing of the other in its reason.
 *
 * @example
 * ```ts
 * const refused = copyRefusal(req.key, copy, sourceIdentity(req.cluster, plan.kcp, obj));
 * if (refused !== undefined) log.warn(refused.detail);
 * ```
 * @param key - the consumer object's key.
 * @param copy - the service copy.
 * @param source - the consumer object it must belong to.
 * @returns the refusal, or `undefined`.
 */
export function copyRefusal(key: ObjectKey, copy: KubeObject, source: SourceIdentity): Refusal | undefined {
  const problem = ownershipProblem('service copy', copy, source, 'refuse');
  if (problem === undefined) return undefined;
  return { key, detail: `tenant check for ${formatKey(key)}: ${problem.detail}`, reason: `the service copy at ${copy.metadata.namespace ?? ''}/${copy.metadata.name ?? ''}: ${problem.reason}` };
}

/**
 * A refused write, as a sink outcome (terminal: nothing changes until one side does).
 *
 * @example
 * ```ts
 * const outcome: WriteOutcome = refused('patch', req.key, 'tenant check: …', 'status');
 * ```
 * @param verb - the write that was not made.
 * @param key - the object it would have written.
 * @param why - the reason, in words.
 * @param subresource - `status` for a status write.
 * @returns a Left outcome.
 */
export function refused(verb: 'apply' | 'patch', key: ObjectKey, why: string, subresource?: 'status'): WriteOutcome {
  return writeFailed(verb, key, refusal('Forbidden', key, `sync refused: ${why}`), 0, subresource);
}

/**
 * Writes the consumer object's status, through its status subresource (nothing without one): the
 * copy's whole status when the plan syncs status up (`syncUp.status` not false) and a copy that
 * passed the tenant check is given, else the consumer's own; with the agent's condition (see
 * `nextCondition`: False while `refusals` is not empty). One merge patch of the difference; nothing
 * is sent when they are equal, or when the copy has no status yet and there is no condition to write.
 *
 * @example
 * ```ts
 * syncStatus(ctx.sinks, plan, req.key, obj, copy, [], new Date(ctx.sinks.scheduler.now())).pipe(toAction());
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param key - the consumer object's key (its workspace is the only place written).
 * @param consumer - the consumer object as cached.
 * @param copy - the service copy, already checked to be the consumer object's; `undefined` when there is none to read.
 * @param refusals - what this sync refused.
 * @param now - the time a condition changes.
 * @returns the patch's outcome, or nothing.
 */
export function syncStatus(sinks: SinkContext, plan: PublishedPlan, key: ObjectKey, consumer: KubeObject, copy: KubeObject | undefined, refusals: readonly Refusal[], now: Date): Observable<WriteOutcome> {
  if (!plan.statusSubresource) return EMPTY;
  const have = (consumer as KubeObject & { readonly status?: unknown }).status;
  // api-syncagent's status mutation: on the service copy, the consumer object as `other`.
  const mutated = plan.published.syncUp?.status === false || copy === undefined ? undefined : mutate(plan.mutations?.status, copy, consumer);
  const failed: Refusal[] = mutated?.type === 'failed' ? [{ key, detail: `sync refused: ${plan.published.name}: status ${mutated.message} (consumer object ${formatKey(key)})`, reason: `the status mutation failed: ${mutated.message}` }] : [];
  const fromCopy = mutated?.type === 'mutated' ? (mutated.object as KubeObject & { readonly status?: unknown }).status : undefined;
  const condition = nextCondition([...refusals, ...failed], consumer, now);
  if (fromCopy === undefined && condition === undefined) return EMPTY;
  const want = withCondition(fromCopy ?? have, condition);
  const patch = mergePatchTo(have ?? {}, want);
  if (patch === undefined) return EMPTY;
  return patchSink(sinks, { key, resource: plan.kcp, subresource: 'status', patch: { status: patch }, current: consumer });
}
