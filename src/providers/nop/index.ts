/**
 * The provider of no cluster, for wiring a controller before its discovery is decided.
 *
 * @packageDocumentation
 * @module rxfleet/providers/nop
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import { asyncScheduler, concat, defer, NEVER, of } from 'rxjs';
import type { Provider } from '../../streams/cluster.js';
import { reported } from '../../streams/cluster.js';

/**
 * A provider that never engages anything and never completes (completion would read as "discovery
 * over"; a provider that is merely empty stays open). It says at once that its first discovery
 * pass found nothing (a `discovered` report), so a run that allows an empty fleet gets ready.
 *
 * @example
 * ```ts
 * import { nopProvider } from 'rxfleet/providers/nop';
 * const fleet = createFleet(nopProvider());
 * ```
 * @returns the provider.
 */
export function nopProvider(): Provider {
  return defer(() => concat(of(reported(Object.freeze({ type: 'discovered', provider: 'nop', clusters: 0, candidates: 0, at: asyncScheduler.now() }))), NEVER));
}
