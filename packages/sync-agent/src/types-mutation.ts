// A mutation's configuration (api-syncagent's ResourceMutationSpec): the steps and where they apply.
// types.ts re-exports them beside the entries that use them.

/**
 * One step of a mutation: exactly one of `delete`, `regex`, `template` or `cel`, each at a `path`
 * (dotted, `\\.` for a dot inside a key: `metadata.annotations.example\\.com/tier`), as in
 * api-syncagent. `regex` is RE2 syntax (linear time; `$1` in the replacement), `template` the
 * agent's template subset with `.Value`, `.LocalObject` (the object being mutated) and
 * `.RemoteObject` (its counterpart on the other side, absent on the first sync), `cel` a CEL
 * expression with `value`, `self` and `other`. Nothing can read files, the environment or the
 * network: the template subset has no such function and CEL has none.
 *
 * @example
 * ```ts
 * const steps: readonly MutationStep[] = [
 *   { delete: { path: 'spec.debug' } },
 *   { regex: { path: 'spec.image', pattern: '^docker.io/(.*)$', replacement: 'mirror.example.dev/$1' } },
 *   { template: { path: 'spec.owner', template: '{{ .LocalObject.metadata.name }}' } },
 *   { cel: { path: 'spec.size', expression: 'value * 2' } },
 * ];
 * ```
 */
export type MutationStep =
  | { readonly delete: { readonly path: string } }
  | { readonly regex: { readonly path: string; readonly pattern?: string; readonly replacement?: string } }
  | { readonly template: { readonly path: string; readonly template: string } }
  | { readonly cel: { readonly path: string; readonly expression: string } };

/**
 * Rewrite rules applied in order: `spec` to the consumer object before its copy is written down
 * (`other` is the service copy), `status` to the service copy before its status goes up (`other`
 * is the consumer object). api-syncagent's `mutation`.
 *
 * @example
 * ```ts
 * const mutation: PublishedMutation = { spec: [{ delete: { path: 'spec.debug' } }], status: [{ delete: { path: 'status.internalEndpoint' } }] };
 * ```
 */
export interface PublishedMutation {
  /** Applied going down. */
  readonly spec?: readonly MutationStep[];
  /** Applied going up. */
  readonly status?: readonly MutationStep[];
}
