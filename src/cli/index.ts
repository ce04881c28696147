/**
 * rxfleet/cli: what @rxfleet/cli (the `rxfleet` command, a dev dependency) takes from the rxfleet
 * it runs with, beyond the public API: the `rxfleet sync` command module, whose agent lives in this
 * package until it moves to a package of its own. Not for programs: they run the agent with
 * `syncAgent` from `rxfleet/sync`. Its types use yargs' (`@types/yargs`).
 *
 * @example
 * ```ts
 * import yargs from 'yargs';
 * import { syncCommand } from 'rxfleet/cli';
 * await yargs(process.argv.slice(2)).command(syncCommand).parseAsync();
 * ```
 * @packageDocumentation
 * @module rxfleet/cli
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type { SyncArgs } from './commands/sync.js';
export { syncCommand } from './commands/sync.js';
