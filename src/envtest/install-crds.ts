// CRDs installed into a test's API server and waited on until they are served: each one applied
// (server-side, so installing again is harmless), then Established, then, for every served
// version, listed by discovery and answering a list, so a test can use its custom resources at once.
import type { ClusterClient } from '../client/client.js';
import { createClusterClient } from '../client/client.js';
import { clusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import { isLeft } from '../core/either.js';
import { customResourceDefinitions } from '../core/resource.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from '../resources/apiextensions-v1/types.js';
import type { CrdSource, SourcedCrd } from './crd-sources.js';
import { readCrdSources } from './crd-sources.js';
import { waitUntil } from './wait.js';

/**
 * Where {@link installCrds} installs: the path of a kubeconfig file, or anything with a kubeconfig
 * document (a `KubeApiserverHandle`, a `KcpHandle` (its root workspace), a `KcpWorkspace`).
 *
 * @example
 * ```ts
 * const target: CrdTarget = '/tmp/rxfleet-kas-x/admin.kubeconfig';
 * ```
 */
export type CrdTarget =
  | string
  | {
      /** The admin kubeconfig of the server, as YAML or JSON text (an envtest handle has this method). */
      kubeconfigYaml(): string;
    };

/**
 * Options of {@link installCrds}.
 *
 * @example
 * ```ts
 * const opts: InstallCrdsOptions = { timeoutMs: 60_000, fieldManager: 'my-tests' };
 * ```
 */
export interface InstallCrdsOptions {
  /** How long all the CRDs together may take to be served (default 30 s). */
  readonly timeoutMs?: number;
  /** The field manager of the server-side apply (default `rxfleet-envtest`). */
  readonly fieldManager?: string;
}

/**
 * A CRD {@link installCrds} installed, now served.
 *
 * @example
 * ```ts
 * const widgets: InstalledCrd = { name: 'widgets.example.dev', group: 'example.dev', plural: 'widgets', kind: 'Widget', versions: ['v1'] };
 * ```
 */
export interface InstalledCrd {
  /** `<plural>.<group>`. */
  readonly name: string;
  /** The API group (`spec.group`). */
  readonly group: string;
  /** The resource's plural, its name in URLs and discovery (`spec.names.plural`). */
  readonly plural: string;
  /** The kind of its objects (`spec.names.kind`). */
  readonly kind: string;
  /** The served versions, each listed by discovery and answering a list. */
  readonly versions: readonly string[];
}

const condition = (crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined => crd.status?.conditions?.find((c) => c.type === type);
const said = (c: CustomResourceDefinitionCondition): string => `${c.type} is ${c.status}${c.reason === undefined ? '' : ` (${c.reason})`}${c.message === undefined ? '' : `: ${c.message}`}`;
const servedVersions = (crd: CustomResourceDefinition): string[] => crd.spec.versions.filter((v) => v.served).map((v) => v.name);

function clientFor(target: CrdTarget): ClusterClient {
  const made = createClusterClient(clusterName('envtest'), typeof target === 'string' ? { file: target } : { yaml: target.kubeconfigYaml() });
  if (isLeft(made)) throw new ConfigError(`installCrds: ${made.left.message}`);
  return made.right;
}

/**
 * Throws why `group/version/plural` is not served yet: discovery does not list it, or a list of it
 * does not answer (right after discovery does, kube-apiserver answers 429 "storage is
 * (re)initializing" while the resource's watch cache fills). A 403 ends the check: the server
 * decided without reaching the storage, and a user without list rights could prove no more.
 */
async function checkServed(client: ClusterClient, group: string, version: string, plural: string): Promise<void> {
  const discovery = await client.raw({ method: 'GET', path: `/apis/${group}/${version}` });
  if (isLeft(discovery)) throw new Error(`discovery of ${group}/${version}: ${discovery.left.message}`);
  const resources = (discovery.right as { resources?: readonly { name?: unknown }[] } | null)?.resources ?? [];
  if (!resources.some((r) => r.name === plural)) throw new Error(`discovery of ${group}/${version} does not list ${plural} yet`);
  const list = await client.raw({ method: 'GET', path: `/apis/${group}/${version}/${plural}?limit=1` });
  if (isLeft(list) && list.left.type !== 'Forbidden') throw new Error(`list ${plural}.${group}/${version}: ${list.left.message}`);
}

/**
 * Undefined once `name` is Established, and discovery lists and a list answers it in every served
 * version; the reason the server gave when it will never be (its names were not accepted); throws
 * why not yet.
 */
async function notServed(client: ClusterClient, name: string): Promise<string | undefined> {
  const got = await client.get(customResourceDefinitions, name);
  if (isLeft(got)) throw new Error(`${name}: ${got.left.message}`);
  const crd = got.right;
  const names = condition(crd, 'NamesAccepted');
  if (names?.status === 'False') return said(names);
  const established = condition(crd, 'Established');
  if (established?.status !== 'True') throw new Error(`${name}: ${established === undefined ? 'no Established condition yet' : said(established)}`);
  for (const version of servedVersions(crd)) {
    await checkServed(client, crd.spec.group, version, crd.spec.names.plural).catch((err: unknown) => {
      throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    });
  }
  return undefined;
}

async function apply(client: ClusterClient, { crd, from }: SourcedCrd, fieldManager: string): Promise<void> {
  const applied = await client.apply(customResourceDefinitions, crd, { fieldManager, force: true });
  const name = crd.metadata.name ?? '';
  if (isLeft(applied)) throw new Error(`installCrds: CustomResourceDefinition ${name} (${from}): ${applied.left.message}`);
}

/**
 * Installs CustomResourceDefinitions into a test's API server (server-side apply, so a second
 * install is harmless) and resolves once every one is Established and, in each served version,
 * discovery lists its resource and a list of it answers: the test can then create, list and watch
 * the custom resources at once, with no retry of its own. Files and directories are read as by controller-runtime's
 * envtest (`CRDDirectoryPaths`).
 *
 * @example
 * ```ts
 * import { installCrds, startKubeApiserver } from 'rxfleet/envtest';
 *
 * const kas = await startKubeApiserver();
 * const [widget] = await installCrds(kas, ['config/crd/bases'], { timeoutMs: 60_000 });
 * // widget?.versions: ['v1', 'v1alpha1'], each served: create, list or watch widgets now.
 * ```
 * @param target - the kubeconfig path, or a handle of `startKubeApiserver`, `startKcp` or `createKcpWorkspace`.
 * @param crds - CRD objects, YAML/JSON file paths, directories of them, or one of those.
 * @param options - the bound on the wait, the field manager.
 * @returns the installed CRDs, in the order given.
 * @throws ConfigError naming the file (and document) or object when an input is not a CRD, before
 * any request; Error naming the CRD and the server's answer when the apply fails or the server
 * rejects its names; Error naming the CRD and its last state when it is not served in `timeoutMs`.
 */
export async function installCrds(target: CrdTarget, crds: CrdSource | readonly CrdSource[], options: InstallCrdsOptions = {}): Promise<readonly InstalledCrd[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new ConfigError(`installCrds: timeoutMs must be a positive number of milliseconds, not ${timeoutMs}`);
  const sourced = readCrdSources(([] as readonly CrdSource[]).concat(crds));
  if (sourced.length === 0) throw new ConfigError('installCrds: no CustomResourceDefinition given');
  const client = clientFor(target);
  try {
    for (const s of sourced) await apply(client, s, options.fieldManager ?? 'rxfleet-envtest');
    const pending = new Set(sourced.map((s) => s.crd.metadata.name ?? ''));
    const what = `CustomResourceDefinition${pending.size === 1 ? '' : 's'} ${[...pending].join(', ')} to be Established and served`;
    const rejected = await waitUntil(
      what,
      async () => {
        for (const name of pending) {
          const never = await notServed(client, name);
          if (never !== undefined) return `installCrds: CustomResourceDefinition ${name} will not be served: ${never}`;
          pending.delete(name);
        }
        return null;
      },
      { timeoutMs, intervalMs: 100 },
    ).catch((err: unknown) => {
      throw new Error(`installCrds: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
    if (rejected !== null) throw new Error(rejected);
    return sourced.map(({ crd }) => ({ name: crd.metadata.name ?? '', group: crd.spec.group, plural: crd.spec.names.plural, kind: crd.spec.names.kind, versions: servedVersions(crd) }));
  } finally {
    client.close();
  }
}
