import { ConfigError } from './config-error.js';
// Cluster identity: the first contract every provider, stream and sink agrees on.

declare const clusterNameBrand: unique symbol;

/**
 * The name of a cluster in the fleet, as its provider named it (a kubeconfig context, a Secret, a
 * kcp logical cluster...). Branded so a plain namespace or object name cannot be passed by mistake.
 *
 * @example
 * ```ts
 * import { clusterName } from 'rxfleet';
 * const east = clusterName('east');
 * ```
 */
export type ClusterName = string & {
  /** Compile-time brand only: no such property exists at run time. */
  readonly [clusterNameBrand]: true;
};

/**
 * Makes a {@link ClusterName}, refusing names that cannot identify a cluster: empty strings and
 * strings with control characters (they would corrupt keys, logs and metric labels).
 *
 * @example
 * ```ts
 * import { clusterName } from 'rxfleet';
 * clusterName('root:org:team-a'); // kcp paths and `<file>+<context>` names are fine
 * clusterName('');                // throws ConfigError
 * ```
 * @param name - the provider's name for the cluster.
 * @returns the same string, branded.
 * @throws ConfigError when the name is empty or contains control characters.
 */
export function clusterName(name: string): ClusterName {
  if (name.length === 0) throw new ConfigError('cluster name must not be empty');
  // eslint-disable-next-line no-control-regex -- the point is to reject control characters
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new ConfigError(`cluster name ${JSON.stringify(name)} contains control characters`);
  }
  return name as ClusterName;
}
