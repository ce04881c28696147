// What the consumer sees of a refusal: a condition in its object's status, next to the status the
// service copy reports. It appears the first time the agent refuses something for the object
// (False, reason Refused, saying what was refused in words that name nothing of another object),
// and turns True once nothing is refused any more. Objects never refused carry none, so the agent
// writes nothing extra for them.
import type { KubeObject } from 'rxfleet';
import type { ObjectKey } from 'rxfleet';

/**
 * The condition type the agent writes on consumer objects.
 *
 * @example
 * ```ts
 * const mine: boolean = syncedCondition(consumer.status)?.type === syncedConditionType;
 * ```
 */
export const syncedConditionType = 'sync.rxfleet.dev/Synced';

/**
 * One refusal of a sync: what was not read, written or copied, and why. `detail` names both sides
 * (for the agent's log); `reason` names nothing of another object (for the consumer's status).
 *
 * @example
 * ```ts
 * const r: Refusal = { key, detail: 'Secret shared/x belongs to ws-a/default/orders ...', reason: 'related "connection" (Secret): belongs to another object' };
 * ```
 */
export interface Refusal {
  /** The object that was not written (or read). */
  readonly key: ObjectKey;
  /** For the agent's log. */
  readonly detail: string;
  /** For the consumer object's status. */
  readonly reason: string;
}

/**
 * A condition in the metav1.Condition shape (every field a CRD's standard condition schema requires).
 *
 * @example
 * ```ts
 * const c: SyncCondition = { type: syncedConditionType, status: 'True', reason: 'Synced', message: '...', lastTransitionTime: '2025-01-01T00:00:00Z' };
 * ```
 */
export interface SyncCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: 'Synced' | 'Refused';
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

type Json = Readonly<Record<string, unknown>>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
// A condition message is at most 32768 characters (metav1.Condition).
const MAX_MESSAGE = 4096;

const conditionsOf = (status: unknown): readonly unknown[] => (isMap(status) && Array.isArray(status.conditions) ? (status.conditions as readonly unknown[]) : []);

/**
 * The agent's condition as it stands in a status, if any.
 *
 * @example
 * ```ts
 * const before = syncedCondition(consumer.status);
 * ```
 * @param status - a status (anything).
 * @returns the condition, or `undefined`.
 */
export function syncedCondition(status: unknown): SyncCondition | undefined {
  const found = conditionsOf(status).find((c) => isMap(c) && c.type === syncedConditionType);
  return found as SyncCondition | undefined;
}

/**
 * The condition the consumer object should carry: False while `refusals` is not empty, True when
 * it is and the object carried one before, none otherwise. The transition time is kept while the
 * status (True/False) stays.
 *
 * @example
 * ```ts
 * const c = nextCondition(refusals, consumer, new Date(scheduler.now()));
 * ```
 * @param refusals - this sync's refusals.
 * @param consumer - the consumer object (its status and generation).
 * @param now - the time of a transition.
 * @returns the condition, or `undefined` when the object needs none.
 */
export function nextCondition(refusals: readonly Refusal[], consumer: KubeObject, now: Date): SyncCondition | undefined {
  const before = syncedCondition((consumer as KubeObject & { readonly status?: unknown }).status);
  if (refusals.length === 0 && before === undefined) return undefined;
  const refused = refusals.length > 0;
  const status = refused ? 'False' : 'True';
  const reasons = [...new Set(refusals.map((r) => r.reason))];
  const text = refused ? `refused by the sync agent: ${reasons.join('; ')}` : 'the service copy and every related object belong to this object';
  const message = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
  const generation = consumer.metadata.generation;
  return {
    type: syncedConditionType,
    status,
    reason: refused ? 'Refused' : 'Synced',
    message,
    lastTransitionTime: before?.status === status ? before.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

/**
 * A status with the agent's condition put in (replacing an earlier one of its type, other
 * conditions kept in order), or the status unchanged when there is none to put.
 *
 * @example
 * ```ts
 * const desired = withCondition(copy.status, nextCondition(refusals, consumer, now));
 * ```
 * @param status - the status (from the copy, or the consumer's own).
 * @param condition - the agent's condition.
 * @returns the status to write.
 */
export function withCondition(status: unknown, condition: SyncCondition | undefined): unknown {
  if (condition === undefined) return status;
  const base = isMap(status) ? status : {};
  const others = conditionsOf(base).filter((c) => !(isMap(c) && c.type === syncedConditionType));
  return { ...base, conditions: [...others, condition] };
}
