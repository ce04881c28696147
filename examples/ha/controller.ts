// ha: the controller that examples/ha/main.ts runs as several replicas. Every tenant namespace of
// one server is a cluster (the namespaces provider); in each, every ConfigMap labelled
// `rxfleet.io/ha-role=input` is copied to `<name>-out`, stamped with the identity of the replica
// that wrote it and when. Those two annotations are what makes a hand-over visible on the server:
// `kubectl get cm -A -l rxfleet.io/ha-role=output -o custom-columns=...` shows who writes where.
import { concatMap, defer, timer } from 'rxjs';
import type { Cluster, ConfigMap, Controller } from 'rxfleet';
import { configMaps, controller, done, namespaces, objectKey, toAction } from 'rxfleet';
import { mapToKeys } from 'rxfleet/operators';
import { namespaceProvider } from 'rxfleet/providers/namespaces';
import { apply } from 'rxfleet/sinks';

/** The controller's name: its field manager and, by default, its Lease name (or Lease prefix). */
export const CONTROLLER = 'ha-copy';
/** Which namespaces are clusters of the fleet, unless the caller passes another selector. */
export const TENANT_SELECTOR = 'rxfleet.io/tenant=true';
/** Label of the ConfigMaps this controller copies (`input`) and writes (`output`). */
export const ROLE = 'rxfleet.io/ha-role';
/** Annotation on every output: the identity of the replica that wrote it. */
export const WRITTEN_BY = 'rxfleet.io/written-by';
/** Annotation on every output: when that replica sent the write (ms since the epoch, its clock). */
export const WRITTEN_AT = 'rxfleet.io/written-at';
/** Suffix of an output's name. */
export const OUT_SUFFIX = '-out';

/** What {@link copyController} needs besides the server. */
export interface CopyOptions {
  /** The server whose namespaces are the fleet (and, in main.ts, where the Leases live). */
  readonly server: Cluster;
  /** This replica's identity, written into every output (the same one it holds its Lease with). */
  readonly identity: string;
  /** Which namespaces are clusters (default {@link TENANT_SELECTOR}). */
  readonly tenantSelector?: string;
  /**
   * Wait this long in each reconcile before writing (default 0). Only for demonstrations and
   * tests: it keeps reconciles in flight, so a replica frozen with SIGSTOP is frozen mid-reconcile
   * and, when continued, tries to finish a write its Lease no longer covers (and is fenced).
   */
  readonly reconcileDelayMs?: number;
  /**
   * Stamp every output with `written-by` and `written-at` (default true). `false`: an output holds
   * its input's data only, and the controller watches its outputs (each mapped to its input), so a
   * reconcile whose output already is as it should be sends nothing: its cache proves the apply
   * needless (a take-over or a restart over converged outputs writes nothing).
   */
  readonly stampOutputs?: boolean;
}

/**
 * The output of one input: same data, the writer's identity and the time of writing.
 *
 * @example
 * ```ts
 * const out = outputOf(input, 'replica-a-1f2e3d', Date.now());
 * ```
 * @param input - the input ConfigMap (with name and namespace).
 * @param identity - the replica writing; `undefined` leaves the output unstamped (no `written-by`, no `written-at`).
 * @param now - the time of writing, in ms.
 * @returns the ConfigMap to apply.
 */
export function outputOf(input: ConfigMap, identity: string | undefined, now: number): ConfigMap {
  return {
    metadata: {
      name: `${input.metadata.name ?? ''}${OUT_SUFFIX}`,
      namespace: input.metadata.namespace ?? '',
      labels: { [ROLE]: 'output' },
      // written-at changes on every write, so every write is a new resourceVersion on the server
      // (a no-op apply would not be, and an audit of writes would miss it).
      ...(identity === undefined ? {} : { annotations: { [WRITTEN_BY]: identity, [WRITTEN_AT]: String(now) } }),
    },
    data: { ...input.data },
  };
}

/**
 * The copy controller. It knows nothing about replicas: leader election or sharding is an option
 * of `run`/`main` (see main.ts), which decides which clusters this process engages and fences the
 * sinks' writes when this replica may no longer write.
 *
 * @example
 * ```ts
 * void main(copyController({ server, identity }), { replicas: { type: 'leader-election', home: server, namespace: 'rxfleet-system', identity } });
 * ```
 * @param opts - the server, this replica's identity, the tenant selector and the delay.
 * @returns the controller.
 */
export function copyController(opts: CopyOptions): Controller<ConfigMap> {
  const delayMs = opts.reconcileDelayMs ?? 0;
  const stamp = opts.stampOutputs ?? true;
  return controller({
    name: CONTROLLER,
    // The provider's shared caches (one cluster-wide watch per selection) keep this controller's
    // own Apply entries of managedFields, which prove an apply needless: the run asks them to.
    provider: namespaceProvider({ management: opts.server, labelSelector: opts.tenantSelector ?? TENANT_SELECTOR }),
    resource: configMaps,
    // Only inputs wake the controller: its own outputs are ConfigMaps too.
    select: { labelSelector: `${ROLE}=input` },
    // For `rxfleet rbac`: it applies the outputs, and its provider watches the server's namespaces.
    writes: [{ resource: configMaps }],
    watches: [{ resource: namespaces }],
    // Unstamped outputs are watched, each change mapped to its input: the cache that proves an
    // apply needless, and what corrects an output changed by hand.
    ...(stamp
      ? {}
      : {
          inputs: ({ fleetWatch }) => [
            fleetWatch(configMaps, { labelSelector: `${ROLE}=output` }).pipe(
              mapToKeys(configMaps, (ev) => (ev.key.name.endsWith(OUT_SUFFIX) ? [objectKey(ev.key.cluster, ev.key.namespace, ev.key.name.slice(0, -OUT_SUFFIX.length))] : [])),
            ),
          ],
        }),
    reconcile: (req, ctx) => {
      // A deleted input leaves its output in place: this example is about who writes, not cleanup.
      if (req.object === undefined) return done();
      const input = req.object;
      // The write is built when it is sent (after the delay, if any), so written-at is the time it
      // was sent. No delay, no timer: a reconcile whose apply is proven needless ends at once.
      const write = defer(() => apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: outputOf(input, stamp ? opts.identity : undefined, Date.now()) }));
      return (delayMs === 0 ? write : timer(delayMs).pipe(concatMap(() => write))).pipe(toAction());
    },
  });
}
