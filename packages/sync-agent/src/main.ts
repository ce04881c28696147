// The `rxfleet-sync-agent` command line (loaded by bin.ts once the Node version is known to be
// good): one default command (command.ts) with help, strict parsing and the package's version.
import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import yargs from 'yargs';
import { ConfigError } from 'rxfleet';
import { scrubSecrets } from 'rxfleet/runtime';
import { syncAgentCommand } from './command.js';

// The package's version: package.json sits one level above this file (dist/ when installed, src/
// in the repository).
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

/**
 * Builds the `rxfleet-sync-agent` parser over `argv` (without the node and script paths). A usage
 * error ends `parseAsync` with a {@link ConfigError}.
 *
 * @example
 * ```ts
 * await syncAgentCli(['--config', 'sync.yaml', '--port', '0']).parseAsync();
 * ```
 * @param argv - the arguments, e.g. `process.argv.slice(2)`.
 * @returns the yargs parser; call `parseAsync()` to run it.
 */
export function syncAgentCli(argv: readonly string[]): Argv {
  return yargs([...argv])
    .scriptName('rxfleet-sync-agent')
    .command(syncAgentCommand)
    .strict()
    .help()
    .alias('h', 'help')
    .version(version())
    .wrap(null)
    .fail((msg: string | undefined, err: Error | undefined) => {
      if (err !== undefined) throw err;
      throw new ConfigError(`${msg ?? 'invalid arguments'} (rxfleet-sync-agent --help shows the usage)`);
    });
}

/**
 * Runs the agent with these arguments (what bin.ts calls). A failure prints
 * `rxfleet-sync-agent: <message>` (tokens scrubbed) and sets the exit code: 2 for a configuration
 * error, 1 otherwise.
 *
 * @example
 * ```ts
 * await runSyncAgent(process.argv.slice(2));
 * ```
 * @param argv - the arguments, without the node and script paths.
 */
export async function runSyncAgent(argv: readonly string[]): Promise<void> {
  try {
    await syncAgentCli(argv).parseAsync();
  } catch (err) {
    process.stderr.write(`rxfleet-sync-agent: ${scrubSecrets(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  }
}
