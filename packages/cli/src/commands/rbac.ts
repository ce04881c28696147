// `rxfleet rbac <module> [-- args]`: prints the RBAC a controller needs on each cluster of its
// fleet, derived from its declaration (see rbac-rules.ts), without running it.
import type { Argv, CommandModule } from 'yargs';
import { ConfigError } from 'rxfleet';
import { loadControllers } from '../load-module.js';
import { bindingsFor, renderRbac } from '../rbac-output.js';
import { rolesFor } from '../rbac-rules.js';

/**
 * The arguments of `rxfleet rbac`.
 *
 * @example
 * ```ts
 * const args: RbacArgs = { module: 'dist/main.js', output: 'yaml', events: true };
 * ```
 */
export interface RbacArgs {
  /** The module declaring the controller(s). */
  readonly module: string;
  /** `yaml` (default) or `json`. */
  readonly output: 'yaml' | 'json';
  /** Grant Events next to the primary resource (`--no-events` leaves them out). */
  readonly events: boolean;
  /** The Leases' namespace, when the module does not say (its `main` has no `replicas`). */
  readonly leaseNamespace?: string;
  /** `<namespace>/<name>` of a ServiceAccount to bind the roles to. */
  readonly serviceAccount?: string;
  /** The module's own arguments (after `--`). */
  readonly '--'?: readonly (string | number)[];
}

const description = `Print the ClusterRoles/Roles a controller needs, derived from its declaration.

The module is imported, not run: it must export its controller(s) (\`export default controller({...})\`
or \`export const controllers = [...]\`), or call \`main(...)\` on load (main then hands the controller
over and runs nothing). Arguments after \`--\` are the module's own (its process.argv.slice(2)).

Derived: get/list/watch on the primary resource (\`resource\`, \`select\`) and on \`watches\`; the verbs
of each \`writes\` entry (apply: get/patch/create; status: <resource>/status patch; ...); create/patch
on events.k8s.io Events; and, with replicas (or --lease-namespace), a Role on Leases in the home
cluster. Each role's \`rxfleet.dev/clusters\` annotation says where it goes: all, home, or the
clusterSelector of its declarations. Namespaced declarations give Roles, the rest ClusterRoles.`;

async function handler(args: RbacArgs): Promise<void> {
  const rest = (args['--'] ?? []).map(String);
  const declared = await loadControllers(args.module, rest);
  const roles = rolesFor(declared, { events: args.events, ...(args.leaseNamespace === undefined ? {} : { leaseNamespace: args.leaseNamespace }) });
  let docs: Parameters<typeof renderRbac>[0] = roles;
  if (args.serviceAccount !== undefined) {
    const [namespace = '', name = '', extra] = args.serviceAccount.split('/');
    if (namespace === '' || name === '' || extra !== undefined) throw new ConfigError(`--service-account ${JSON.stringify(args.serviceAccount)}: expected <namespace>/<name>`);
    docs = [...roles, ...bindingsFor(roles, { namespace, name })];
  }
  for (const d of declared) {
    if ((d.controller.writes ?? []).length === 0) {
      process.stderr.write(`rxfleet rbac: controller "${d.controller.name}" declares no \`writes\`; the roles grant no write (declare them in controller({ writes: [...] }))\n`);
    }
  }
  process.stdout.write(renderRbac(docs, args.output));
}

/**
 * The `rxfleet rbac` command module (yargs).
 *
 * @example
 * ```ts
 * yargs(hideBin(process.argv)).command(rbacCommand).parse();
 * // rxfleet rbac dist/main.js -o json --service-account rxfleet-system/hello -- --cluster hub=/etc/hub.kubeconfig
 * ```
 */
export const rbacCommand: CommandModule<object, RbacArgs> = {
  command: 'rbac <module>',
  describe: 'Print the RBAC roles a controller needs, from its declaration',
  builder: (y: Argv) =>
    y
      .usage(`$0 rbac <module> [options] [-- module args]\n\n${description}`)
      .positional('module', { type: 'string', demandOption: true, describe: 'the module declaring the controller(s), e.g. dist/main.js' })
      .option('output', { alias: 'o', choices: ['yaml', 'json'] as const, default: 'yaml' as const, describe: 'output format' })
      .option('events', { type: 'boolean', default: true, describe: 'grant create/patch on events.k8s.io Events (--no-events: not)' })
      .option('lease-namespace', { type: 'string', describe: 'namespace of the Leases in the home cluster (default: from the replicas option, if any)' })
      .option('service-account', { type: 'string', describe: 'also print bindings to this ServiceAccount, <namespace>/<name>' })
      .parserConfiguration({ 'populate--': true })
      .example('$0 rbac dist/main.js -- default ~/.kube/config', 'roles for a controller that reads its arguments')
      .example('$0 rbac dist/main.js -o json --service-account ops/hello', 'roles and bindings as a JSON List'),
  handler,
};
