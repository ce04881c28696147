// A provider narrowed to the clusters its subscriber will run: a sharding replica asks its
// provider for the clusters it owns only, so that the others cost no client, no watch and no
// cached object here. A provider that can be narrowed says so with `scopable`; any other (a
// composition, a provider of a few clusters) is left as it is and filtered after it.
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { Provider } from './cluster.js';

/**
 * Which clusters a subscriber wants a provider to engage, as it changes.
 *
 * @example
 * ```ts
 * const scope: FleetScope = { wants: (c: ClusterName) => owner(c) === me, changes: ownershipApplied, found: (n: number) => health.discovered(n) };
 * ```
 */
export interface FleetScope {
  /** Whether the cluster of that name is to be engaged (and its objects kept); asked again after each `changes`. */
  wants(name: ClusterName): boolean;
  /** Emits after `wants` may have answered differently. */
  readonly changes: Observable<unknown>;
  /** Told how many clusters the provider found, wanted or not (what an unnarrowed provider would engage). */
  found(clusters: number): void;
}

const narrowable = Symbol('rxfleet.narrowable');
type Narrowable = Provider & { readonly [narrowable]?: (scope: FleetScope) => Provider };

/**
 * A provider that can be narrowed: `narrowed(scope)` engages only what `scope` wants.
 *
 * @example
 * ```ts
 * const provider = scopable(make(undefined), (scope: FleetScope) => make(scope));
 * ```
 * @param provider - the provider unnarrowed.
 * @param narrowed - the provider for a scope.
 * @returns `provider`, marked.
 */
export function scopable(provider: Provider, narrowed: (scope: FleetScope) => Provider): Provider {
  return Object.assign(provider, { [narrowable]: narrowed });
}

/**
 * The provider narrowed to `scope`, or `undefined` when it cannot be (it engages everything, to be
 * filtered after it).
 *
 * @example
 * ```ts
 * const p = narrowProvider(provider, scope) ?? provider;
 * ```
 * @param provider - any provider.
 * @param scope - what to engage.
 * @returns the narrowed provider, or undefined.
 */
export function narrowProvider(provider: Provider, scope: FleetScope): Provider | undefined {
  return (provider as Narrowable)[narrowable]?.(scope);
}
