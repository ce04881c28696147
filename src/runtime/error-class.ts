// The `reason` label of failed reconciles: a bounded set of values, whatever reconcilers throw.
// Server and sink failures carry a tag from a closed list; anything else is named by its Error
// class, and only the first few class names get a series of their own.
import type { KubeErrorType } from '../core/errors.js';
import type { WriteErrorType } from '../sinks/result.js';

// `satisfies` keeps the list complete: a new tag fails to compile until it is added here.
const tags = {
  BadRequest: true, Unauthorized: true, Forbidden: true, NotFound: true, MethodNotAllowed: true, AlreadyExists: true, Conflict: true,
  Gone: true, Invalid: true, TooManyRequests: true, Timeout: true, Transient: true, ClusterUnreachable: true, Tls: true,
  InvalidConfig: true, NotEngaged: true, Fenced: true, Decode: true, Unknown: true, NoStatusSubresource: true, Terminating: true, RecipeFailed: true,
} satisfies Record<KubeErrorType | WriteErrorType, true>;
const known: ReadonlySet<string> = new Set(Object.keys(tags));

/** Error class names beyond the tags that get their own label value; later ones count as `Other`. */
export const maxErrorClasses = 16;

/**
 * A classifier of reconcile failures into bounded label values: the tag of a `KubeError` or a
 * sink's `WriteError` (`Conflict`, `Forbidden`…), else the error's class name (`Error`,
 * `TypeError`, a reconciler's own `SpecError`…) for the first {@link maxErrorClasses} names seen,
 * else `Other`; a thrown non-Error is named by its `typeof` (`string`, `object`…).
 *
 * @example
 * ```ts
 * const classify = errorClassifier();
 * classify(kubeError('Conflict', cluster, 'modified')); // 'Conflict'
 * classify(new TypeError('x')); // 'TypeError'
 * ```
 * @returns the classifier (one per controller: it remembers the class names it has let through).
 */
export function errorClassifier(): (cause: unknown) => string {
  const classes = new Set<string>();
  return (cause) => {
    if (typeof cause === 'object' && cause !== null && 'type' in cause && typeof cause.type === 'string' && known.has(cause.type)) return cause.type;
    if (!(cause instanceof Error)) return typeof cause;
    const name = cause.name;
    if (classes.has(name)) return name;
    // A name built at run time (or a long one) would make a series per value: only plain identifiers.
    if (classes.size >= maxErrorClasses || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) return 'Other';
    classes.add(name);
    return name;
  };
}
