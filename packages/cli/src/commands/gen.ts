// `rxfleet gen types`: TypeScript types and resource descriptors from CRDs, read from YAML files or
// from a live server, one file per served version (../codegen does the work).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { clusterName, ConfigError, isLeft } from 'rxfleet';
import { createClusterClient } from 'rxfleet/client';
import type { GeneratedFile } from '../codegen/generate-types.js';
import { generateTypes } from '../codegen/generate-types.js';
import { readCrdFromCluster, readCrds } from '../codegen/read-crds.js';

/**
 * The arguments of `rxfleet gen types`.
 *
 * @example
 * ```ts
 * const args: GenTypesArgs = { crd: ['config/crd/widgets.yaml'], fromCluster: [], out: 'src/generated', importFrom: 'rxfleet', check: false };
 * ```
 */
export interface GenTypesArgs {
  /** CRD YAML files (each may hold several documents). */
  readonly crd: readonly string[];
  /** Names of CRDs to read from the server of `--kubeconfig` instead (`widgets.example.com`). */
  readonly fromCluster: readonly string[];
  /** Kubeconfig for `--from-cluster`; default `$KUBECONFIG`, then `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** Context of that kubeconfig; default its current context. */
  readonly context?: string;
  /** Directory the files are written to (created if missing). */
  readonly out: string;
  /** Module the generated files import rxfleet from. */
  readonly importFrom: string;
  /** Write nothing; exit 1 when a file is missing or differs (for CI). */
  readonly check: boolean;
}

async function filesFor(args: GenTypesArgs): Promise<GeneratedFile[]> {
  if (args.crd.length === 0 && args.fromCluster.length === 0) {
    throw new ConfigError('gen types: give CRD YAML files, or --from-cluster NAME (with --kubeconfig)');
  }
  const files: GeneratedFile[] = [];
  for (const path of args.crd) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`gen types: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    files.push(...(await generateTypes({ crds: readCrds(text, path), importFrom: args.importFrom, from: basename(path) })));
  }
  if (args.fromCluster.length > 0) {
    const file = args.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
    const client = createClusterClient(clusterName('gen'), { file, ...(args.context === undefined ? {} : { context: args.context }) });
    if (isLeft(client)) throw new ConfigError(`gen types: kubeconfig ${file}: ${client.left.message}`);
    try {
      for (const name of args.fromCluster) {
        const crd = await readCrdFromCluster(client.right, name, `the server of ${file}`);
        files.push(...(await generateTypes({ crds: [crd], importFrom: args.importFrom })));
      }
    } finally {
      client.right.close();
    }
  }
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new ConfigError(`gen types: two CRDs would both write ${f.path} (same kind and version)`);
    seen.add(f.path);
  }
  return files;
}

async function handler(args: GenTypesArgs): Promise<void> {
  const files = await filesFor(args);
  if (args.check) {
    const stale = files.filter((f) => {
      try {
        return readFileSync(join(args.out, f.path), 'utf8') !== f.text;
      } catch {
        return true;
      }
    });
    for (const f of stale) process.stderr.write(`rxfleet gen types: ${join(args.out, f.path)} is missing or out of date\n`);
    if (stale.length > 0) process.exitCode = 1;
    return;
  }
  mkdirSync(args.out, { recursive: true });
  for (const f of files) {
    writeFileSync(join(args.out, f.path), f.text);
    process.stdout.write(`${join(args.out, f.path)}\n`);
  }
}

const typesCommand: CommandModule<object, GenTypesArgs> = {
  command: 'types [crd..]',
  describe: 'TypeScript types and a resource descriptor for each served version of CRDs',
  builder: (y: Argv) =>
    y
      .positional('crd', { type: 'string', array: true, default: [], describe: 'CRD YAML files (several documents each are fine)' })
      .option('from-cluster', { type: 'string', array: true, default: [], describe: 'read the CRD of this name (plural.group) from a server instead' })
      .option('kubeconfig', { type: 'string', describe: 'kubeconfig for --from-cluster (default $KUBECONFIG, then ~/.kube/config)' })
      .option('context', { type: 'string', describe: 'kubeconfig context for --from-cluster' })
      .option('out', { alias: 'o', type: 'string', demandOption: true, describe: 'directory to write <kind>-<version>.ts files to' })
      .option('import-from', { type: 'string', default: 'rxfleet', describe: 'module the files import rxfleet from' })
      .option('check', { type: 'boolean', default: false, describe: 'write nothing; exit 1 if a file is missing or differs' })
      .example('$0 gen types config/crd/widgets.yaml --out src/generated', 'one file per served version of each CRD')
      .example('$0 gen types --from-cluster widgets.example.com --kubeconfig dev.yaml --out src/generated', 'from the CRD installed on a server') as unknown as Argv<GenTypesArgs>,
  handler,
};

/**
 * The `rxfleet gen` command module (yargs): `rxfleet gen types <crd.yaml..> --out dir`, or
 * `rxfleet gen types --from-cluster NAME --kubeconfig PATH --out dir`.
 *
 * @example
 * ```ts
 * yargs(hideBin(process.argv)).command(genCommand).parse();
 * // rxfleet gen types config/crd/widgets.yaml --out src/generated
 * ```
 */
export const genCommand: CommandModule = {
  command: 'gen',
  describe: 'Generate code: TypeScript types from CRDs',
  builder: (y: Argv) => y.command(typesCommand).demandCommand(1, 'give what to generate: rxfleet gen types --help'),
  handler: () => undefined,
};
