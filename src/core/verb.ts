// The request verbs of the Kubernetes API, the one vocabulary of writes everywhere in rxfleet: the
// client's methods, the sinks' results, controller declarations (`rxfleet rbac`) and the fake's
// recorded requests. A subresource is never part of a verb; it is a field beside it.

/**
 * A Kubernetes API request verb, as RBAC and client-go name them: `get`, `list`, `watch`, `create`,
 * `update` (a PUT of the whole object), `patch`, `apply` (server-side apply; a PATCH on the wire,
 * named apart as client-go does) and `delete`.
 *
 * @example
 * ```ts
 * const reads: readonly Verb[] = ['get', 'list', 'watch'];
 * ```
 */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete';

/**
 * The verbs that write: what a sink reports it sent (`WriteResult.verb`) and what a controller
 * declares it writes (`WriteDeclaration.verbs`).
 *
 * @example
 * ```ts
 * const verb: WriteVerb = 'apply';
 * ```
 */
export type WriteVerb = 'create' | 'update' | 'patch' | 'apply' | 'delete';
