// The simplest provider: a fixed list of already-built clusters. Real discovery (kubeconfig files,
// Secrets, kcp APIExports) lives in src/providers; this one serves examples and tests.
import { concat, defer, from, map, NEVER } from 'rxjs';
import type { Cluster, Provider } from './cluster.js';
import { engaged } from './cluster.js';

/**
 * A provider that engages the given clusters on subscribe and never changes. It does not complete:
 * completion would read as "discovery over", and keeping it open lets the fleet disengage
 * everything when unsubscribed, as every provider does.
 *
 * @example
 * ```ts
 * const fleet = createFleet(staticProvider([east, west]));
 * ```
 * @param clusters - the clusters, built by the caller (who also closes their clients).
 * @returns the provider.
 */
export function staticProvider(clusters: readonly Cluster[]): Provider {
  return defer(() => concat(from(clusters).pipe(map(engaged)), NEVER));
}
