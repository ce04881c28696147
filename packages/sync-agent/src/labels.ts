// The names the sync agent writes on the objects it makes: labels that select what the agent owns
// (so a restart or an orphan sweep finds every copy with one list call), the annotation that tells
// a service-side namespace's workspace, and the finalizer that makes a consumer's deletion wait for
// the service-side copy to go first. One prefix, `sync.rxfleet.dev/`, so they never clash with the
// back-reference's `rxfleet.dev/source*` names or with api-syncagent's `syncagent.kcp.io/*`.

/**
 * The agent name used when the config gives none: the field manager, the `agent` label's value and
 * the finalizer's suffix.
 *
 * @example
 * ```ts
 * const name: string = config.agentName ?? defaultAgentName; // 'rxfleet-sync'
 * ```
 */
export const defaultAgentName = 'rxfleet-sync';

/**
 * The `controller` label of the agent's own requests (its preflight's, and the live agent's reads
 * and status patches of PublishedResources) in `rxfleet_requests_total`: no controller of its
 * runs has it.
 *
 * @example
 * ```ts
 * const requests = requestMetrics(agentSeries);
 * ```
 */
export const agentSeries = 'rxfleet-sync-agent';

/**
 * Label: the agent that made the object (its `agentName`). On every object the agent creates:
 * service copies, service-side namespaces, related copies, APIResourceSchemas. Also the annotation
 * on the APIExport the agent keeps (an export whose annotation names another agent is refused).
 *
 * @example
 * ```ts
 * const mine: string = `${agentLabel}=${agentName}`; // a label selector for list and watch
 * ```
 */
export const agentLabel = 'sync.rxfleet.dev/agent';

/**
 * Label: the published resource (its `name` in the config) an object belongs to, next to
 * {@link agentLabel} on everything the agent creates.
 *
 * @example
 * ```ts
 * const copies: string = `${agentLabel}=rxfleet-sync,${publishedLabel}=databases`;
 * ```
 */
export const publishedLabel = 'sync.rxfleet.dev/published';

/**
 * Label: on a related copy (a Secret or ConfigMap carried across), the related resource's
 * `identifier`, so two related objects of one primary are told apart.
 *
 * @example
 * ```ts
 * const connection: string | undefined = secret.metadata.labels?.[relatedLabel]; // 'connection'
 * ```
 */
export const relatedLabel = 'sync.rxfleet.dev/related';

/**
 * Annotation: on a service-side namespace the agent made, the workspace whose objects it holds:
 * its logical cluster, after `<installation>#` for a workspace of another kcp installation than
 * the default one (`eu#root`; see `KcpInstallation`). The default naming hashes nothing there, but a custom template may.
 *
 * @example
 * ```ts
 * const workspace: string | undefined = ns.metadata.annotations?.[syncClusterAnnotation];
 * ```
 */
export const syncClusterAnnotation = 'sync.rxfleet.dev/cluster';

/**
 * The finalizer the agent puts on a consumer's object: `sync.rxfleet.dev/<agentName>`. One per
 * agent, so two agents publishing into the same workspace never remove each other's.
 *
 * @example
 * ```ts
 * syncFinalizer('rxfleet-sync'); // 'sync.rxfleet.dev/rxfleet-sync'
 * ```
 * @param agentName - the config's agent name (already checked: a valid label value).
 * @returns the finalizer name.
 */
export function syncFinalizer(agentName: string): string {
  return `sync.rxfleet.dev/${agentName}`;
}

/**
 * The two ownership labels every object the agent creates carries.
 *
 * @example
 * ```ts
 * const labels: Readonly<Record<string, string>> = agentLabels('rxfleet-sync', 'databases');
 * // { 'sync.rxfleet.dev/agent': 'rxfleet-sync', 'sync.rxfleet.dev/published': 'databases' }
 * ```
 * @param agentName - the agent's name.
 * @param published - the published resource's name.
 * @returns a frozen label map.
 */
export function agentLabels(agentName: string, published: string): Readonly<Record<string, string>> {
  return Object.freeze({ [agentLabel]: agentName, [publishedLabel]: published });
}

/**
 * The label selector (string form) of every object one published resource of one agent created.
 *
 * @example
 * ```ts
 * agentSelector('rxfleet-sync', 'databases'); // 'sync.rxfleet.dev/agent=rxfleet-sync,sync.rxfleet.dev/published=databases'
 * ```
 * @param agentName - the agent's name.
 * @param published - the published resource's name.
 * @returns the selector, for list and watch calls.
 */
export function agentSelector(agentName: string, published: string): string {
  return `${agentLabel}=${agentName},${publishedLabel}=${published}`;
}
