// api-syncagent's PublishedResources on the service cluster, as the watched-PublishedResource tests
// use them: the descriptor, the package's CRD applied as a user would, an object of it, and its
// verdict (the `Ready` condition the agent writes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject } from '../../src/index.js';
import { customResourceDefinitions, resource } from '../../src/index.js';
import { repoRoot } from './binaries.js';
import { getOrUndefined } from './sync-agent-kcp.js';
import { tempFile, waitFor } from './sync-agent-process.js';

/** A condition as the agent writes it. @example `{ type: 'Ready', status: 'True', reason: 'Served' }` */
export interface PublishedCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** A PublishedResource as the tests read it. @example `const o: PublishedResourceObject = must(await client.get(publishedResources, 'dbs'));` */
export interface PublishedResourceObject extends KubeObject {
  readonly spec?: unknown;
  readonly status?: { readonly conditions?: readonly PublishedCondition[]; readonly resourceSchemaName?: string };
}

/** `syncagent.kcp.io/v1alpha1` PublishedResources. @example `await client.create(publishedResources, o)` */
export const publishedResources = resource<PublishedResourceObject>({ group: 'syncagent.kcp.io', version: 'v1alpha1', plural: 'publishedresources', kind: 'PublishedResource', namespaced: false });

/**
 * Applies the package's `crd/publishedresources.yaml` (another test may have already) and waits until it is served.
 *
 * @example
 * ```ts
 * await installPublishedResourceCrd(svc.client);
 * ```
 * @param client - the service cluster's admin client.
 */
export async function installPublishedResourceCrd(client: ClusterClient): Promise<void> {
  const crd = load(readFileSync(join(repoRoot, 'packages', 'sync-agent', 'crd', 'publishedresources.yaml'), 'utf8')) as KubeObject;
  const made = await client.create(customResourceDefinitions, crd);
  if (E.isLeft(made) && made.left.type !== 'AlreadyExists') throw new Error(made.left.message);
  await waitFor('the PublishedResource CRD served', async () => (E.isRight(await client.list(publishedResources, { limit: 1 })) ? true : undefined));
}

/**
 * A PublishedResource of `kind` in `group`, version v1, labelled `rxfleet-test: <tag>`.
 *
 * @example
 * ```ts
 * await client.create(publishedResources, publishedResourceOf('dbs', svc.group, 'Database', tag));
 * ```
 * @param name - its name.
 * @param group - the CRD's group.
 * @param kind - the CRD's kind.
 * @param tag - the test's label value (the agent's `publishedResourceSelector`).
 * @param extra - more of its spec.
 * @returns the object.
 */
export function publishedResourceOf(name: string, group: string, kind: string, tag: string, extra: Record<string, unknown> = {}): PublishedResourceObject {
  return { apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name, labels: { 'rxfleet-test': tag } }, spec: { resource: { apiGroup: group, kind, versions: ['v1'] }, ...extra } };
}

/**
 * Waits for the `Ready` condition of a PublishedResource to have `status`.
 *
 * @example
 * ```ts
 * expect((await readyCondition(svc.client, 'dbs', 'True', context)).reason).toBe('Served');
 * ```
 * @param client - the service cluster's client.
 * @param name - the PublishedResource.
 * @param status - 'True' or 'False'.
 * @param context - read on time-out (the agent's log tail).
 * @returns the condition.
 */
export function readyCondition(client: ClusterClient, name: string, status: string, context: () => string): Promise<PublishedCondition> {
  return waitFor(`PublishedResource ${name} Ready=${status}`, async () => {
    const o = await getOrUndefined(client, publishedResources, name);
    const c = o?.status?.conditions?.find((x) => x.type === 'Ready');
    return c?.status === status ? c : undefined;
  }, { context });
}

/**
 * A live agent's configuration with a second installation `eu` (namespace prefix `eu-`): no entry of
 * its own, following the PublishedResources labelled `rxfleet-test: <tag>`.
 *
 * @example
 * ```ts
 * const config = liveEuConfig(svc, tag, euWorkspace.kubeconfigYaml());
 * ```
 * @param svc - the service side's export and agent names.
 * @param tag - the test's label value.
 * @param euKubeconfigYaml - eu's provider workspace's kubeconfig (written to a private temp file).
 * @returns the configuration's text.
 */
export function liveEuConfig(svc: { readonly exportName: string; readonly agentName: string }, tag: string, euKubeconfigYaml: string): string {
  return [
    `apiExport: ${svc.exportName}`,
    `agentName: ${svc.agentName}`,
    'watchPublishedResources: true',
    `publishedResourceSelector: rxfleet-test=${tag}`,
    'installations:',
    '  - name: eu',
    `    kubeconfig: ${tempFile('eu.kubeconfig', euKubeconfigYaml)}`,
    '    namespacePrefix: eu-',
  ].join('\n');
}
