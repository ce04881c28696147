// What `rxfleet get <resource>` names: a built-in resource by its plural (`pods`, `deployments`),
// optionally with its group (`deployments.apps`), or any resource as `group/version/plural`.
import type { ResourceDescriptor } from 'rxfleet';
import { ConfigError, configMaps, customResourceDefinitions, leases, namespaces, resource, secrets } from 'rxfleet';
import * as builtins from 'rxfleet/resources';

function isDescriptor(v: unknown): v is ResourceDescriptor {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return typeof d.group === 'string' && typeof d.version === 'string' && typeof d.plural === 'string' && typeof d.kind === 'string' && typeof d.namespaced === 'boolean';
}

/**
 * The built-in descriptors by plural and by `<plural>.<group>` (core's and the generated
 * `rxfleet/resources` ones).
 *
 * @example
 * ```ts
 * builtinResources().get('deployments.apps')?.kind; // 'Deployment'
 * ```
 * @returns the lookup table.
 */
export function builtinResources(): ReadonlyMap<string, ResourceDescriptor> {
  const all = [configMaps, secrets, namespaces, leases, customResourceDefinitions, ...Object.values(builtins).filter(isDescriptor)];
  const table = new Map<string, ResourceDescriptor>();
  for (const d of all) {
    table.set(d.group === '' ? d.plural : `${d.plural}.${d.group}`, d);
    // The bare plural names the first one seen (core before the others, as kubectl prefers).
    if (!table.has(d.plural)) table.set(d.plural, d);
  }
  return table;
}

/**
 * Resolves a resource name. `group/version/plural` (`v1/pods` or `/v1/pods` for the core group)
 * names any resource, the custom ones included; its scope is taken as namespaced when a namespace
 * is asked for (`namespaced`), so no discovery request is needed.
 *
 * @example
 * ```ts
 * resolveResource('widgets.example.com/v1alpha1/widgets', false).plural; // 'widgets'
 * resolveResource('deployments', true).group; // 'apps'
 * ```
 * @param name - the name given.
 * @param namespaced - whether a namespace was asked for (scope of a `group/version/plural`).
 * @returns the descriptor.
 * @throws ConfigError when the name is unknown or malformed.
 */
export function resolveResource(name: string, namespaced: boolean): ResourceDescriptor {
  const slash = name.split('/');
  if (slash.length === 3 || (slash.length === 2 && slash[0] === 'v1')) {
    const [group = '', version = '', plural = ''] = slash.length === 3 ? slash : ['', ...slash];
    if (version === '' || plural === '' || plural !== plural.toLowerCase()) throw new ConfigError(`resource ${JSON.stringify(name)}: expected group/version/plural, e.g. apps/v1/deployments`);
    // The kind only matters for writes; a list does not send it.
    return resource({ group, version, plural, kind: plural, namespaced });
  }
  const found = builtinResources().get(name.toLowerCase());
  if (found === undefined) throw new ConfigError(`unknown resource ${JSON.stringify(name)}: give a built-in plural (pods, deployments, deployments.apps...) or group/version/plural`);
  return found;
}
