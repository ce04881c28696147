// `rxfleet get <resource> --provider <spec>`: kubectl get across every cluster of a fleet.
import type { Argv, CommandModule } from 'yargs';
import { ConfigError } from 'rxfleet';
import { scrubSecrets } from 'rxfleet/runtime';
import { listAcrossFleet } from '../fleet-list.js';
import { errorTable, objectList, objectTable } from '../get-output.js';
import { providerFromSpecs } from '../provider-spec.js';
import { parseResourceName } from '../resource-name.js';

/**
 * The arguments of `rxfleet get`.
 *
 * @example
 * ```ts
 * const args: GetArgs = { resource: 'configmaps', provider: ['file:/etc/fleet'], output: 'table', timeoutMs: 30_000 };
 * ```
 */
export interface GetArgs {
  /** A name kubectl takes (`pods`, `deploy`, `backups.ops.example.com`) or `group/version/plural`. */
  readonly resource: string;
  /** Provider specs (see `ProviderSpec`); several are merged. */
  readonly provider: readonly string[];
  /** `table` (default), `json` or `yaml`. */
  readonly output: 'table' | 'json' | 'yaml';
  /** List in this namespace only. */
  readonly namespace?: string;
  /** Label selector. */
  readonly selector?: string;
  /** How long the provider's first discovery pass may take. */
  readonly timeoutMs: number;
  /** Keep `metadata.managedFields` in `-o json|yaml`. */
  readonly showManagedFields?: boolean;
}

const description = `List a resource in every cluster of a fleet, with a CLUSTER column.

--provider (repeatable; several are merged), optionally named: <name>=<spec>
  file:<path>[,<path>...]          every context of these kubeconfig files/directories/globs (a bare path too),
                                   named after the context; <spec>#<context> when merged with others
  kubeconfig:<path>[,<context>]    one cluster, <file>#<context> (default: the file's current context)
  apiexport:<export>,<kubeconfig>  every kcp workspace bound to the APIExport, via the provider workspace's kubeconfig
<spec> and <file> are base names (of the first path, of the kubeconfig; the export's name), or the spec's <name>.

<resource> is resolved in each cluster through its discovery, as kubectl does: plural, singular,
short name or kind, optionally .<group> or .<version>.<group>; or group/version/plural.
It waits for the provider's first discovery pass, lists every cluster at once, prints and exits.
-o json|yaml prints one v1 List; each item's cluster is in its rxfleet.dev/cluster annotation.
Exit code 1 when no cluster was found or a cluster failed (one row per failed cluster on stderr;
the others are still printed), 2 on a bad argument.`;

async function handler(args: GetArgs): Promise<void> {
  const name = parseResourceName(args.resource);
  const provider = providerFromSpecs(args.provider);
  const found = await listAcrossFleet(provider, name, {
    timeoutMs: args.timeoutMs,
    ...(args.namespace === undefined ? {} : { namespace: args.namespace }),
    ...(args.selector === undefined ? {} : { labelSelector: args.selector }),
  });
  // Problems and provider specs echo what was given (a URL, a path): scrubbed like log lines.
  for (const p of found.problems) process.stderr.write(`rxfleet get: ${scrubSecrets(p)}\n`);
  if (found.timedOut) process.stderr.write(`rxfleet get: the provider's first discovery pass did not end within ${args.timeoutMs} ms; listing the clusters found so far\n`);
  if (found.listings.length === 0) {
    process.stderr.write(`rxfleet get: no cluster found by ${scrubSecrets(args.provider.join(', '))}\n`);
    process.exitCode = 1;
    return;
  }
  // Only errors when no cluster listed anything: "No resources found." would say the opposite.
  if (found.listings.some((l) => l.result._tag === 'Right')) {
    process.stdout.write(args.output === 'table' ? objectTable(found.listings, Date.now()) : objectList(found.listings, args.output, args.showManagedFields === true));
  }
  const errors = errorTable(found.listings);
  if (errors !== '') {
    process.stderr.write(scrubSecrets(errors));
    process.exitCode = 1;
  }
}

/**
 * The `rxfleet get` command module (yargs).
 *
 * @example
 * ```ts
 * yargs(hideBin(process.argv)).command(getCommand).parse();
 * // rxfleet get configmaps --provider file:~/.kube/fleet -n default -l app=web -o yaml
 * ```
 */
export const getCommand: CommandModule<object, GetArgs> = {
  command: 'get <resource>',
  describe: 'List a resource in every cluster of a fleet',
  builder: (y: Argv) =>
    y
      .usage(`$0 get <resource> --provider <spec> [options]\n\n${description}`)
      .positional('resource', { type: 'string', demandOption: true, describe: 'pods, deploy, backups.ops.example.com, or group/version/plural' })
      .option('provider', { alias: 'p', type: 'string', array: true, demandOption: true, describe: 'where the clusters come from (see above)' })
      .option('output', { alias: 'o', choices: ['table', 'json', 'yaml'] as const, default: 'table' as const, describe: 'output format' })
      .option('namespace', { alias: 'n', type: 'string', describe: 'list in this namespace only (default: all)' })
      .option('selector', { alias: 'l', type: 'string', describe: 'label selector, e.g. app=web,tier!=db' })
      .option('show-managed-fields', { type: 'boolean', default: false, describe: 'keep metadata.managedFields in -o json|yaml' })
      .option('timeout-ms', { type: 'number', default: 30_000, describe: "how long the provider's first discovery pass may take" })
      .check((a) => {
        const t = a['timeout-ms'];
        if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) throw new ConfigError(`--timeout-ms must be a positive number of ms, got ${String(t)}`);
        return true;
      })
      .example('$0 get configmaps -p file:/etc/fleet -n default', 'ConfigMaps of namespace default in every cluster')
      .example('$0 get backups.ops.example.com -p kubeconfig:east.yaml,prod -p kubeconfig:west.yaml', 'custom resources of two clusters, east.yaml#prod and west.yaml#<its current context>')
      .example('$0 get widgets.example.com/v1/widgets -p apiexport:widgets,provider.kubeconfig -o yaml', 'custom resources of every bound kcp workspace') as unknown as Argv<GetArgs>,
  handler,
};
