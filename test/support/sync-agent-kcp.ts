// The kcp side of the sync-agent end-to-end test: waiting for the APIExport the agent publishes,
// binding it in a consumer workspace with every permission claim accepted (the connection Secrets
// travel through the claim on secrets), and unbinding. Shapes checked against kcp v0.28.1:
// a binding's claim is the export's claim plus `selector: { matchAll: true }` (required; the only
// selector implemented) and `state: Accepted`.
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject, ResourceDescriptor } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { waitFor } from './sync-agent-process.js';

/**
 * A permission claim of an APIExport (v1alpha2).
 *
 * @example
 * ```ts
 * const claim: ExportClaim = { group: '', resource: 'secrets', verbs: ['*'] };
 * ```
 */
export interface ExportClaim {
  readonly group?: string;
  readonly resource: string;
  readonly verbs: readonly string[];
  readonly identityHash?: string;
}

/**
 * The parts of an APIExport the test reads.
 *
 * @example
 * ```ts
 * const names = (ex: Export): string[] => (ex.spec?.resources ?? []).map((r) => r.schema);
 * ```
 */
export interface Export extends KubeObject {
  readonly spec?: {
    readonly resources?: readonly { readonly group?: string; readonly name: string; readonly schema: string }[];
    readonly permissionClaims?: readonly ExportClaim[];
  };
}

/**
 * The parts of an APIBinding the test reads.
 *
 * @example
 * ```ts
 * const bound = (b: Binding): boolean => b.status?.phase === 'Bound';
 * ```
 */
export interface Binding extends KubeObject {
  readonly status?: { readonly phase?: string };
}

/** @example `await provider.get(exportsV1alpha2, 'databases.example.dev')` */
export const exportsV1alpha2 = resource<Export>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false });
/** @example `await consumer.get(bindingsV1alpha2, 'databases')` */
export const bindingsV1alpha2 = resource<Binding>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apibindings', kind: 'APIBinding', namespaced: false });
/** @example `await provider.get(schemasV1alpha1, 'v1abc.databases.example.dev')` */
export const schemasV1alpha1 = resource({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apiresourceschemas', kind: 'APIResourceSchema', namespaced: false });

/** The binding's name in every consumer workspace. */
export const BINDING = 'sync-agent';

/**
 * The object, or undefined when it does not exist (any other error throws).
 *
 * @example
 * ```ts
 * const ex = await getOrUndefined(provider, exportsV1alpha2, 'databases.example.dev');
 * ```
 * @param client - the cluster.
 * @param r - the resource.
 * @param name - the name.
 * @param namespace - the namespace, for a namespaced resource.
 * @returns the object or undefined.
 */
export async function getOrUndefined<T extends KubeObject>(client: ClusterClient, r: ResourceDescriptor<T>, name: string, namespace?: string): Promise<T | undefined> {
  const got = await client.get(r, name, namespace === undefined ? {} : { namespace });
  if (E.isRight(got)) return got.right;
  if (got.left.type === 'NotFound') return undefined;
  throw new Error(`GET ${r.plural} ${namespace ?? ''}/${name} in ${client.cluster}: ${got.left.message}`);
}

/**
 * Waits until the APIExport exists and `ready` says it is what the test needs.
 *
 * @example
 * ```ts
 * const ex = await waitForExport(provider, 'databases.example.dev', (e) => (e.spec?.resources ?? []).length > 0, () => agent.tail());
 * ```
 * @param provider - the provider workspace's client.
 * @param name - the export's name.
 * @param ready - what the export must satisfy.
 * @param context - more text for the timeout's message (the agent's output).
 * @returns the export.
 */
export async function waitForExport(provider: ClusterClient, name: string, ready: (e: Export) => boolean, context: () => string = () => ''): Promise<Export> {
  return waitFor(
    `the APIExport ${name} in ${provider.cluster}`,
    async () => {
      const ex = await getOrUndefined(provider, exportsV1alpha2, name);
      return ex !== undefined && ready(ex) ? ex : undefined;
    },
    { timeoutMs: 90_000, context },
  );
}

/**
 * Binds the export in a consumer workspace, accepting each of its permission claims as it stands,
 * and waits until the binding is Bound and `served` (the published resource) answers a list.
 *
 * @example
 * ```ts
 * await bindExport(consumer, ex, 'root:provider', kcpDatabases);
 * ```
 * @param consumer - the consumer workspace's client.
 * @param ex - the export (its claims are accepted).
 * @param providerPath - the provider workspace's path.
 * @param served - the resource the binding makes available.
 * @param name - the binding's name (default {@link BINDING}; another where a workspace others use, such as root, is bound).
 */
export async function bindExport(consumer: ClusterClient, ex: Export, providerPath: string, served: ResourceDescriptor, name: string = BINDING): Promise<void> {
  const claims = (ex.spec?.permissionClaims ?? []).map((c) => ({ ...c, group: c.group ?? '', selector: { matchAll: true }, state: 'Accepted' }));
  const binding = { metadata: { name }, spec: { reference: { export: { path: providerPath, name: ex.metadata.name ?? '' } }, permissionClaims: claims } };
  // kcp refuses the binding (403 "no permission to bind") until the new export and its bind
  // permission have reached the consumer's shard (through the cache server on a sharded kcp): retry
  // that refusal only, bounded; any other failure ends the wait at once.
  let refused = '';
  await waitFor(`the binding of ${ex.metadata.name ?? ''} in ${consumer.cluster} to be accepted`, async () => {
    const applied = await consumer.apply(bindingsV1alpha2, binding, { fieldManager: 'sync-agent-test', force: true });
    if (E.isRight(applied)) return true;
    refused = applied.left.message;
    if (applied.left.type === 'Forbidden' && refused.includes('no permission to bind')) return undefined;
    throw new Error(`binding ${ex.metadata.name ?? ''} in ${consumer.cluster}: ${refused}`);
  }, { timeoutMs: 60_000, context: () => refused });
  await waitFor(`the binding in ${consumer.cluster} to be Bound`, async () => ((await getOrUndefined(consumer, bindingsV1alpha2, name))?.status?.phase === 'Bound' ? true : undefined), {
    timeoutMs: 90_000,
  });
  await waitFor(`${served.plural} served in ${consumer.cluster}`, async () => (E.isRight(await consumer.list(served, { namespace: 'default', limit: 1 })) ? true : undefined), {
    timeoutMs: 90_000,
  });
}

/**
 * Deletes the workspace's binding (kcp then deletes every bound object in it) without waiting.
 *
 * @example
 * ```ts
 * await unbindExport(consumer);
 * ```
 * @param consumer - the consumer workspace's client.
 * @param name - the binding's name (default {@link BINDING}).
 */
export async function unbindExport(consumer: ClusterClient, name: string = BINDING): Promise<void> {
  const deleted = await consumer.delete(bindingsV1alpha2, name);
  if (E.isLeft(deleted) && deleted.left.type !== 'NotFound') throw new Error(`unbinding in ${consumer.cluster}: ${deleted.left.message}`);
}
