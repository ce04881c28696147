// Failures injected into the in-memory fleet: per cluster, verb, resource and name, once or N times,
// answered as the real client would answer them (the same KubeError shapes, Retry-After included).
import { headersTimeout } from '../client/headers-deadline.js';
import type { KubeError } from '../core/errors.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { Verb } from '../core/verb.js';
import type { ClusterState } from './fake-store.js';
import type { Target } from './fake-writes.js';
import { serverError } from './fake-writes.js';
import { ConfigError } from '../core/config-error.js';

/**
 * What an injected failure answers: an HTTP error status (a Status body as the server sends it), or
 * a request that never gets an answer (the client's deadline passes).
 *
 * @example
 * ```ts
 * const f: InjectedFailure = { type: 'status', code: 429, retryAfterSeconds: 2 };
 * ```
 */
export type InjectedFailure =
  | {
      /** The server answers with an error status. */
      readonly type: 'status';
      /** The HTTP status: 403, 404, 409, 429, 500, 503… */
      readonly code: number;
      /** The Status reason; default the usual one for the code (`Forbidden`, `TooManyRequests`…). */
      readonly reason?: string;
      /** The Status message; default a sentence naming the injected failure. */
      readonly message?: string;
      /** The Retry-After the server sends (429 and 503). */
      readonly retryAfterSeconds?: number;
    }
  | {
      /** No answer: the call fails with the client's `Timeout` after `timeoutMs` of scheduler time. */
      readonly type: 'timeout';
      /** How long the call hangs first (scheduler time; Promise calls answer at once). Default 0. */
      readonly timeoutMs?: number;
    };

/**
 * Which calls fail, how, and how often.
 *
 * @example
 * ```ts
 * fleet.inject({ cluster: 'east', verb: 'apply', resource: configMaps, times: 2, failure: statusFailure(500) });
 * ```
 */
export interface FailureRule {
  /** Only this cluster; every cluster when absent. */
  readonly cluster?: string;
  /** Only these calls; every call when absent. */
  readonly verb?: Verb | readonly Verb[];
  /** Only this resource; every resource when absent. */
  readonly resource?: ResourceDescriptor;
  /** Only the object of this name; every object when absent. */
  readonly name?: string;
  /** How many matching calls fail (default 1); `Infinity` for all of them. */
  readonly times?: number;
  /** The failure. */
  readonly failure: InjectedFailure;
}

const reasons: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * An injected error status.
 *
 * @example
 * ```ts
 * statusFailure(403);                              // Forbidden
 * statusFailure(429, { retryAfterSeconds: 2 });    // TooManyRequests, Retry-After: 2
 * ```
 * @param code - the HTTP status.
 * @param extra - reason, message and Retry-After.
 * @returns the failure.
 */
export function statusFailure(code: number, extra: { readonly reason?: string; readonly message?: string; readonly retryAfterSeconds?: number } = {}): InjectedFailure {
  return Object.freeze({ type: 'status', code, ...extra });
}

/**
 * An injected timeout: the call hangs for `afterMs` of scheduler time, then fails with `Timeout`.
 *
 * @example
 * ```ts
 * fleet.inject({ verb: 'get', failure: timeoutFailure(10_000) });
 * ```
 * @param timeoutMs - how long the call hangs first (default 0).
 * @returns the failure.
 */
export function timeoutFailure(timeoutMs = 0): InjectedFailure {
  return Object.freeze({ type: 'timeout', timeoutMs });
}

/**
 * The error an injected failure answers with, as the real client would build it.
 *
 * @example
 * ```ts
 * const err = injectedError(state, 'PATCH', target, statusFailure(500));
 * ```
 * @param state - the cluster.
 * @param method - the HTTP method.
 * @param t - the target.
 * @param f - the failure.
 * @returns the error.
 */
export function injectedError(state: ClusterState, method: string, t: Target, f: InjectedFailure): KubeError {
  if (f.type === 'timeout') return headersTimeout(state.cluster, `${method} ${t.r.plural}/${t.name}`, f.timeoutMs ?? 0, 'headers');
  const reason = f.reason ?? reasons[f.code] ?? 'Unknown';
  const message = f.message ?? `injected failure: ${f.code} ${reason}`;
  return serverError(state, method, t, f.code, reason, message, f.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: f.retryAfterSeconds });
}

/**
 * The failure rules of a fleet: each call takes the first rule that matches it and has uses left.
 *
 * @example
 * ```ts
 * const rules = failureRules();
 * rules.add({ verb: 'apply', failure: statusFailure(409) });
 * rules.take('east', 'apply', configMaps, 'a'); // the failure, once
 * ```
 * @returns the rules.
 */
export function failureRules(): {
  /** Adds a rule (after the others). */
  add(rule: FailureRule): void;
  /** The failure of one call, using up one of its rule's `times`; `undefined` when no rule matches. */
  take(cluster: string, verb: Verb, r: ResourceDescriptor, name: string): InjectedFailure | undefined;
  /** Drops every rule. */
  clear(): void;
} {
  const rules: { rule: FailureRule; left: number }[] = [];
  return {
    add(rule) {
      const times = rule.times ?? 1;
      if (!(times >= 1)) throw new ConfigError(`a failure rule needs times ≥ 1, got ${times}`);
      rules.push({ rule, left: times });
    },
    take(cluster, verb, r, name) {
      const hit = rules.find(({ rule, left }) => {
        const verbs: readonly Verb[] | undefined = rule.verb === undefined ? undefined : typeof rule.verb === 'string' ? [rule.verb] : rule.verb;
        return (
          left > 0 &&
          (rule.cluster === undefined || rule.cluster === cluster) &&
          (verbs === undefined || verbs.includes(verb)) &&
          (rule.resource === undefined || resourceId(rule.resource) === resourceId(r)) &&
          (rule.name === undefined || rule.name === name)
        );
      });
      if (hit === undefined) return undefined;
      hit.left--;
      return hit.rule.failure;
    },
    clear() {
      rules.length = 0;
    },
  };
}
