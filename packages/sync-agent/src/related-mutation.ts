// A related entry's `mutation.spec`, compiled once per run by the primary's engine (mutation.ts) and
// run on the origin object before its contents are copied. Preflight reports its problems first.
import type { KubeObject } from 'rxfleet';
import { ConfigError } from 'rxfleet';
import type { CompiledMutations } from './mutation.js';
import { compileMutations, mutate } from './mutation.js';
import type { RelatedResource } from './types.js';

const compiled = new WeakMap<RelatedResource, CompiledMutations>();

/**
 * The problems of a related entry's mutation, relative to it (`mutation.spec[0].regex.pattern: ...`).
 *
 * @example
 * ```ts
 * relatedMutationProblems(related); // [] when it compiles
 * ```
 * @param related - the related entry.
 * @returns the problems.
 */
export function relatedMutationProblems(related: RelatedResource): readonly string[] {
  const steps = related.mutation?.spec ?? [];
  if (steps.length === 0) return [];
  const r = compileMutations(steps);
  return r.type === 'invalid' ? r.problems.map((m) => `mutation.spec${m}`) : [];
}

/**
 * The origin object with the entry's `mutation.spec` applied (`self` the origin object, `other` the
 * copy the destination holds), or why a step failed. No mutation: the object as it is.
 *
 * @example
 * ```ts
 * const r = mutateRelated(related, operatorSecret, currentCopy);
 * if (r.type === 'mutated') console.log(r.object.data);
 * ```
 * @param related - the related entry.
 * @param origin - the origin object.
 * @param current - the destination's copy, if any.
 * @returns the mutated object, or the failure.
 * @throws ConfigError when the mutation does not compile (preflight reports it first).
 */
export function mutateRelated(related: RelatedResource, origin: KubeObject, current: KubeObject | undefined): { readonly type: 'mutated'; readonly object: KubeObject } | { readonly type: 'failed'; readonly message: string } {
  const steps = related.mutation?.spec ?? [];
  if (steps.length === 0) return { type: 'mutated', object: origin };
  let c = compiled.get(related);
  if (c === undefined) {
    const r = compileMutations(steps);
    if (r.type === 'invalid') throw new ConfigError(`related "${related.identifier}": mutation.spec${r.problems.join('; ')}`);
    c = r.mutations;
    compiled.set(related, c);
  }
  return mutate(c, origin, current);
}
