// The `rxfleet` command line (loaded by bin.ts once the Node version is known to be good): yargs
// with help, strict parsing, shell completion (`rxfleet completion`) and one module per command.
// rxfleet is a peer dependency, reached through its public entry points only. The sync agent is
// its own application (@rxfleet/sync-agent, bin rxfleet-sync-agent), not a command here.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import yargs from 'yargs';
import { ConfigError } from 'rxfleet';
import { scrubSecrets } from 'rxfleet/runtime';
import { genCommand } from './commands/gen.js';
import { getCommand } from './commands/get.js';
import { initCommand } from './commands/init.js';
import { rbacCommand } from './commands/rbac.js';

// The package's version: the nearest package.json named @rxfleet/cli above this file (dist/ when
// installed, src/ in the repository).
function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === '@rxfleet/cli' && typeof pkg.version === 'string') return pkg.version;
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

/**
 * Builds the `rxfleet` parser over `argv` (without the node and script paths). A usage error
 * ends `parseAsync` with a {@link ConfigError} (thrown or rejected), a command's error with its
 * own (see {@link runCli}, which prints either as `rxfleet: <message>`).
 *
 * @example
 * ```ts
 * await rxfleetCli(['rbac', 'dist/main.js', '-o', 'json']).parseAsync();
 * ```
 * @param argv - the arguments, e.g. `process.argv.slice(2)`.
 * @returns the yargs parser; call `parseAsync()` to run it.
 */
export function rxfleetCli(argv: readonly string[]): Argv {
  return yargs([...argv])
    .scriptName('rxfleet')
    .usage('$0 <command> [options]\n\nKubernetes controllers across a fleet of clusters: tools for rxfleet projects.')
    .command(initCommand)
    .command(genCommand)
    .command(rbacCommand)
    .command(getCommand)
    .demandCommand(1, 'give a command (rxfleet --help lists them)')
    .strict()
    .completion('completion', 'print a bash/zsh completion script (rxfleet completion >> ~/.bashrc)')
    .help()
    .alias('h', 'help')
    .version(version())
    .wrap(null)
    .fail((msg: string | undefined, err: Error | undefined) => {
      // Errors go on to runCli, which reports them once. A usage error is thrown too: yargs would
      // otherwise go on to run the command without its arguments.
      if (err !== undefined) throw err;
      throw new ConfigError(`${msg ?? 'invalid arguments'} (rxfleet --help shows the usage)`);
    });
}

/**
 * Runs `rxfleet` with these arguments (what bin.ts calls). A failing command prints
 * `rxfleet: <message>` and sets the exit code: 2 for a configuration error (a bad argument, a module
 * declaring no controller), 1 otherwise.
 *
 * @example
 * ```ts
 * await runCli(process.argv.slice(2));
 * ```
 * @param argv - the arguments, without the node and script paths.
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await rxfleetCli(argv).parseAsync();
  } catch (err) {
    process.stderr.write(`rxfleet: ${scrubSecrets(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  }
}
