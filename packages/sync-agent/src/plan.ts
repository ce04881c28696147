// What preflight decided for one published resource, once at start: the two resources the agent
// reads and writes (the sync version under its name on each side) and whether status syncs through a
// subresource.
import type { ResourceDescriptor } from 'rxfleet';
import type { KcpInstallation } from './installations.js';
import type { CompiledMutations } from './mutation.js';
import type { PublishedResource } from './types.js';

/**
 * One published resource, resolved against the service cluster's CRD. `service` is the CRD at the
 * sync version (its storage version when published, else the highest published version in
 * Kubernetes version order); `kcp` is the same version projected (group, plural, kind, and the
 * version's name from the projection: objects are the same JSON under either apiVersion). Made by `preflight`, read by the publisher and the sync controllers.
 *
 * @example
 * ```ts
 * const plan: PublishedPlan = {
 *   published: { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } },
 *   agentName: 'rxfleet-sync',
 *   service: resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true }),
 *   kcp: resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true }),
 *   publishedVersions: ['v1'],
 *   statusSubresource: true,
 * };
 * ```
 */
export interface PublishedPlan {
  /** The config entry, as parsed. */
  readonly published: PublishedResource;
  /** The agent's name (config `agentName`, default `rxfleet-sync`). */
  readonly agentName: string;
  /** The CRD on the service cluster at the sync version. */
  readonly service: ResourceDescriptor;
  /** The resource consumers see in kcp at the sync version (under its kcp name, `projection.versions`). */
  readonly kcp: ResourceDescriptor;
  /** The versions published into the APIResourceSchema, in the CRD's order, by their service names. */
  readonly publishedVersions: readonly string[];
  /** True when the CRD's sync version has the status subresource (status syncs up through it). */
  readonly statusSubresource: boolean;
  /** The entry's mutations, compiled: `spec` going down, `status` going up (none: copied as they are). */
  readonly mutations?: { readonly spec?: CompiledMutations; readonly status?: CompiledMutations };
  /** The related entries' resources as preflight resolved them by discovery (on their origin side), by identifier. */
  readonly related?: Readonly<Record<string, ResourceDescriptor>>;
  /** The destination side's resources of the related entries with a `projection`, by identifier. */
  readonly relatedProjected?: Readonly<Record<string, ResourceDescriptor>>;
  /** The config's other kcp installations (their namespace prefixes place their copies). Default none. */
  readonly installations?: readonly KcpInstallation[];
}
