/**
 * The provider of no cluster, for wiring a controller before its discovery is decided.
 *
 * @packageDocumentation
 * @module rxfleet/providers/nop
 */
import { NEVER } from 'rxjs';
import type { Provider } from '../../streams/cluster.js';

/**
 * A provider that never engages anything and never completes (completion would read as "discovery
 * over"; a provider that is merely empty stays open).
 *
 * @example
 * ```ts
 * import { nopProvider } from 'rxfleet/providers/nop';
 * const fleet = createFleet(nopProvider());
 * ```
 * @returns the provider.
 */
export function nopProvider(): Provider {
  return NEVER;
}
