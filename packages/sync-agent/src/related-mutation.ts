// A related entry's `mutation`, compiled once per run by the primary's engine (mutation.ts): `spec`
// run on the origin object before its contents are copied, `status` before its status is copied
// (with `syncStatus`). Preflight reports their problems first.
import type { KubeObject } from 'rxfleet';
import { ConfigError } from 'rxfleet';
import type { CompiledMutations } from './mutation.js';
import { compileMutations, mutate } from './mutation.js';
import type { RelatedResource } from './types.js';

type Side = 'spec' | 'status';

const compiled = { spec: new WeakMap<RelatedResource, CompiledMutations>(), status: new WeakMap<RelatedResource, CompiledMutations>() };

/**
 * The origin object with the entry's `mutation.spec` (or, with `side` `status`, its
 * `mutation.status`) applied (`self` the origin object, `other` the copy the destination holds),
 * or why a step failed. No mutation: the object as it is.
 *
 * @example
 * ```ts
 * const r = mutateRelated(related, operatorSecret, currentCopy);
 * if (r.type === 'mutated') console.log(r.object.data);
 * ```
 * @param related - the related entry.
 * @param origin - the origin object.
 * @param current - the destination's copy, if any.
 * @param side - which rules: `spec` (the default) or `status`.
 * @returns the mutated object, or the failure.
 * @throws ConfigError when the mutation does not compile (preflight reports it first).
 */
export function mutateRelated(related: RelatedResource, origin: KubeObject, current: KubeObject | undefined, side: Side = 'spec'): { readonly type: 'mutated'; readonly object: KubeObject } | { readonly type: 'failed'; readonly message: string } {
  const steps = related.mutation?.[side] ?? [];
  if (steps.length === 0) return { type: 'mutated', object: origin };
  let c = compiled[side].get(related);
  if (c === undefined) {
    const r = compileMutations(steps);
    if (r.type === 'invalid') throw new ConfigError(`related "${related.identifier}": mutation.${side}${r.problems.join('; ')}`);
    c = r.mutations;
    compiled[side].set(related, c);
  }
  return mutate(c, origin, current);
}
