// Resource descriptors: how rxfleet names "a kind of object" without discovery.
// Discovery through kcp virtual workspaces can be partial, so callers describe resources up front.
import type { KubeObject } from './object.js';
import { ConfigError } from './config-error.js';

/**
 * Describes one API resource: enough to build its URLs and to key its objects. The type parameter is
 * a phantom that types what `get`, `list` and `watch` return.
 *
 * @example
 * ```ts
 * import { resource } from 'rxfleet';
 * interface Rollout extends KubeObject { spec: { image: string } }
 * const rollouts = resource<Rollout>({ group: 'demo.rxfleet.dev', version: 'v1', plural: 'rollouts', kind: 'Rollout', namespaced: true });
 * ```
 */
export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group; `''` for the core group (`/api/v1`). */
  readonly group: string;
  /** API version within the group, e.g. `v1` or `v1beta1`. */
  readonly version: string;
  /** Lower-case plural used in URLs, e.g. `configmaps`. */
  readonly plural: string;
  /** Kind of the objects, e.g. `ConfigMap`; sent as the `kind` of written objects. */
  readonly kind: string;
  /** True when objects live in a namespace, false when the resource is cluster-scoped. */
  readonly namespaced: boolean;
  /** Phantom: never set at run time, only carries `T`. */
  readonly __object?: T;
}

/**
 * Makes a frozen {@link ResourceDescriptor}, checking the fields that would otherwise produce
 * wrong URLs silently.
 *
 * @example
 * ```ts
 * const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
 * ```
 * @param d - group, version, plural, kind and scope.
 * @returns the frozen descriptor.
 * @throws ConfigError when version, plural or kind is empty, or plural is not lower case.
 */
export function resource<T extends KubeObject = KubeObject>(d: Omit<ResourceDescriptor<T>, '__object'>): ResourceDescriptor<T> {
  if (d.version === '' || d.plural === '' || d.kind === '') {
    throw new ConfigError(`resource descriptor needs version, plural and kind: ${JSON.stringify(d)}`);
  }
  if (d.plural !== d.plural.toLowerCase() || d.plural.includes('/')) {
    throw new ConfigError(`resource plural must be a lower-case URL segment, got ${JSON.stringify(d.plural)}`);
  }
  return Object.freeze({ group: d.group, version: d.version, plural: d.plural, kind: d.kind, namespaced: d.namespaced });
}

/**
 * The `apiVersion` string of objects of this resource (`v1`, `apps/v1`).
 *
 * @example
 * ```ts
 * apiVersionOf(configMaps); // 'v1'
 * ```
 * @param r - the resource.
 * @returns `version` for the core group, else `group/version`.
 */
export function apiVersionOf(r: ResourceDescriptor): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/**
 * A stable identifier of the resource, independent of version: `configmaps`, `rollouts.demo.rxfleet.dev`.
 * Used in keys and metric labels.
 *
 * @example
 * ```ts
 * resourceId(configMaps); // 'configmaps'
 * ```
 * @param r - the resource.
 * @returns `plural` or `plural.group`.
 */
export function resourceId(r: ResourceDescriptor): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

// The descriptors of the built-in resources the core uses have one home, rxfleet/resources
// (generated); named here for the core's users.
export { configMaps, namespaces, secrets } from '../resources/core-v1/resources.js';
export { leases } from '../resources/coordination-v1/resources.js';
export { customResourceDefinitions } from '../resources/apiextensions-v1/resources.js';
