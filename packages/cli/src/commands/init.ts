// `rxfleet init <dir>`: scaffolds a controller project (see ../scaffold.ts for what it writes).
import { basename, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { defaultScaffoldValues, scaffold } from '../scaffold.js';

/**
 * The arguments of `rxfleet init`.
 *
 * @example
 * ```ts
 * const args: InitArgs = { dir: 'greeter', force: false };
 * ```
 */
export interface InitArgs {
  /** Where to write the project (created if missing). */
  readonly dir: string;
  /** The project's name; default the folder's name. */
  readonly name?: string;
  /** The `rxfleet` dependency spec; default `^<this release>`. E.g. `file:../rxfleet-0.3.0.tgz`. */
  readonly rxfleet?: string;
  /** The `@rxfleet/cli` dev dependency spec; default `^<this release>`. E.g. `file:../rxfleet-cli-0.3.0.tgz`. */
  readonly cli?: string;
  /** Overwrite files that exist. */
  readonly force: boolean;
}

const description = `Scaffold a controller project in DIR (what npm create rxfleet@latest DIR runs): package.json
(rxfleet a dependency, @rxfleet/cli a dev dependency), tsconfig, src/controller.ts
and src/main.ts (a small working controller), a marble test, an integration test on rxfleet/envtest with its
vitest config, a Dockerfile (two stages, node:24-slim, non-root) and a kustomize base in deploy/.`;

/**
 * `rxfleet init <dir> [--name N] [--rxfleet SPEC] [--cli SPEC] [--force]`.
 *
 * @example
 * ```ts
 * yargs(process.argv.slice(2)).command(initCommand).parse();
 * ```
 */
export const initCommand: CommandModule<object, InitArgs> = {
  command: 'init <dir>',
  describe: 'Scaffold a controller project: controller, tests, Dockerfile, manifests',
  builder: (y: Argv) =>
    y
      .usage(`$0 init <dir>\n\n${description}`)
      .positional('dir', { type: 'string', demandOption: true, describe: 'the folder to write (created if missing)' })
      .option('name', { type: 'string', describe: "the project's name (npm name, namespace, objects); default: the folder's name" })
      .option('rxfleet', { type: 'string', describe: 'the rxfleet dependency spec; default: ^<this release>' })
      .option('cli', { type: 'string', describe: 'the @rxfleet/cli dev dependency spec; default: ^<this release>' })
      .option('force', { type: 'boolean', default: false, describe: 'overwrite files that exist' })
      .example('$0 init greeter', 'a project named greeter in ./greeter') as unknown as Argv<InitArgs>,
  handler: (args) => {
    const dir = resolve(args.dir);
    const name = args.name ?? basename(dir);
    const defaults = defaultScaffoldValues(name);
    const values = { ...defaults, rxfleetRange: args.rxfleet ?? defaults.rxfleetRange, cliRange: args.cli ?? defaults.cliRange };
    const written = scaffold(dir, values, { force: args.force });
    process.stdout.write(
      `rxfleet: wrote ${written.length} files into ${dir}:\n${written.map((w) => `  ${w}`).join('\n')}\n\n` +
        `next: cd ${args.dir} && npm install && npm run test:marbles && npm run test:integration\n`,
    );
  },
};
