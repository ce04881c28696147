// Several kcp installations served by one agent (api-syncagent#13). Each named installation's
// clusters join the agent's one fleet under `<installation>#<name>` (its workspaces, its provider
// workspace), so everything named after a fleet cluster names the installation too: the
// back-reference on every copy (`rxfleet.dev/source-cluster`, and the label's hash over it), the
// tenant checks, the orphan sweep, logs and health. The default installation (the `--kcp-kubeconfig`
// one) keeps bare names: the copies it made before installations existed are its own, unchanged.
import type { ClusterName } from 'rxfleet';
import { clusterName } from 'rxfleet';
import type { FleetEvent } from 'rxfleet/streams';
import { reported } from 'rxfleet/streams';

/**
 * One more kcp installation the agent serves the same API to, beside the default one (the
 * `--kcp-kubeconfig` provider workspace and the config's `apiExport`).
 *
 * @example
 * ```ts
 * const eu: KcpInstallation = { name: 'eu', kubeconfig: 'eu-provider.kubeconfig', namespacePrefix: 'eu-' };
 * ```
 */
export interface KcpInstallation {
  /** Names the installation: its clusters are `<name>#<logical cluster>` in logs, health and back-references. */
  readonly name: string;
  /**
   * Its provider workspace's kubeconfig file (server `https://<kcp>/clusters/<provider workspace>`),
   * relative to the config file. Its credentials are used for this installation only; re-read after a 401.
   */
  readonly kubeconfig: string;
  /** Its APIExport's name in that workspace. Default: the config's `apiExport`. */
  readonly apiExport?: string;
  /** Put before every service-side namespace its copies get (`eu-` + the naming's namespace). */
  readonly namespacePrefix: string;
}

/**
 * The name the default installation (the `--kcp-kubeconfig` one) goes by in reports; reserved.
 *
 * @example
 * ```ts
 * const name: string = installationOf(req.cluster); // 'default' for a bare workspace name
 * ```
 */
export const defaultInstallation = 'default';

/**
 * Between an installation's name and its cluster's in fleet names (`eu#root`). Neither a logical
 * cluster name nor a workspace path can hold it.
 *
 * @example
 * ```ts
 * const fleetName = `eu${installationSeparator}root`; // 'eu#root'
 * ```
 */
export const installationSeparator = '#';

/**
 * The fleet name of an installation's cluster: `<installation>#<cluster>`, or the bare name for
 * the default installation.
 *
 * @example
 * ```ts
 * installationCluster('eu', 'root'); // 'eu#root'
 * installationCluster(undefined, 'root'); // 'root'
 * ```
 * @param installation - the installation's name; `undefined` or {@link defaultInstallation} for the default one.
 * @param cluster - the cluster's name within it (a logical cluster, or `kcp-export`).
 * @returns the fleet name.
 */
export function installationCluster(installation: string | undefined, cluster: string): ClusterName {
  return clusterName(installation === undefined || installation === defaultInstallation ? cluster : `${installation}${installationSeparator}${cluster}`);
}

/**
 * The installation a fleet cluster belongs to: the part before `#`, else {@link defaultInstallation}.
 * A back-reference written before installations existed names a bare workspace: the default's.
 *
 * @example
 * ```ts
 * installationOf(clusterName('eu#root')); // 'eu'
 * installationOf(clusterName('root')); // 'default'
 * ```
 * @param cluster - a fleet cluster name.
 * @returns the installation's name.
 */
export function installationOf(cluster: string): string {
  const i = cluster.indexOf(installationSeparator);
  return i < 0 ? defaultInstallation : cluster.slice(0, i);
}

/**
 * The service-side namespace prefix of a fleet cluster's installation: `''` for the default one,
 * `undefined` for an installation the config does not list (never the default's place: its
 * objects would land among the default installation's tenants).
 *
 * @example
 * ```ts
 * namespacePrefixOf([{ name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' }], clusterName('eu#root')); // 'eu-'
 * ```
 * @param installations - the config's installations.
 * @param cluster - a fleet cluster name.
 * @returns the prefix, or `undefined` for an installation not listed.
 */
export function namespacePrefixOf(installations: readonly KcpInstallation[] | undefined, cluster: string): string | undefined {
  const name = installationOf(cluster);
  return name === defaultInstallation ? '' : installations?.find((i) => i.name === name)?.namespacePrefix;
}

/**
 * Makes an installation's provider reports name it: `withPrefix` renames the clusters they name,
 * but a failing discovery source names its provider workspace (`management`) and an error only says
 * why, so the first gets `<installation>#` and the second `installation <name>: `. Other events pass.
 *
 * @example
 * ```ts
 * const eu: Provider = withPrefix('eu#', apiExportProvider(options)).pipe(map(namingReports('eu')));
 * ```
 * @param installation - the installation's name.
 * @returns the event mapper.
 */
export function namingReports(installation: string): (ev: FleetEvent) => FleetEvent {
  return (ev) => {
    if (ev.type !== 'report') return ev;
    const r = ev.report;
    if (r.type === 'source') return reported({ ...r, management: installationCluster(installation, r.management) });
    if (r.type === 'error') return reported({ ...r, reason: `installation ${installation}: ${r.reason}` });
    return ev;
  };
}
