// The longer scenarios of the sync-agent end-to-end test, written out step by step: the deletion
// order (observed, not assumed), the kill -9 + restart, and a CLI run with a bad configuration.
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ResourceDescriptor, Secret } from '../../src/index.js';
import { secrets } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { runNode } from './node-run.js';
import { getOrUndefined } from './sync-agent-kcp.js';
import type { SyncAgentProcess } from './sync-agent-process.js';
import { cliArgs, tempFile, waitFor } from './sync-agent-process.js';
import type { ServiceSide } from './sync-agent-service.js';
import { backRef } from './sync-agent-service.js';

const must = <T>(r: E.Either<{ readonly message: string }, T>): T => {
  if (E.isLeft(r)) throw new Error(r.left.message);
  return r.right;
};

/**
 * What the deletion scenario saw.
 *
 * @example
 * ```ts
 * const seen: DeletionSeen = { bothTerminating: true, consumerGoneBeforeCopy: false, polls: 12 };
 * ```
 */
export interface DeletionSeen {
  /** Once, the consumer's object and its copy were both there and both being deleted. */
  readonly bothTerminating: boolean;
  /** Once, the consumer's object was gone while its copy was still there. */
  readonly consumerGoneBeforeCopy: boolean;
  readonly polls: number;
}

/**
 * Creates `temp` in the consumer workspace, waits until it is synced (copy, Ready, Secret), deletes
 * it and watches both sides until both are gone. Each poll reads the consumer's object first, then
 * the copy: a consumer object gone while the copy is still there would be seen as such.
 *
 * @example
 * ```ts
 * const seen = await deletionOrder({ consumer, resource, copy: () => copyOf('temp'), context, create: spec });
 * ```
 * @param o - the consumer workspace, the resource in kcp, how to read the copy, the spec to create.
 * @returns what was seen.
 */
export async function deletionOrder(o: {
  readonly consumer: ClusterClient;
  readonly resource: ResourceDescriptor<Database>;
  readonly copy: () => Promise<Database | undefined>;
  readonly context: () => string;
  readonly create: Database['spec'];
}): Promise<DeletionSeen> {
  must(await o.consumer.apply(o.resource, { metadata: { name: 'temp', namespace: 'default' }, spec: o.create }, { fieldManager: 'consumer' }));
  await waitFor('temp synced: copy, Ready, Secret', async () => {
    const [c, s] = await Promise.all([getOrUndefined(o.consumer, o.resource, 'temp', 'default'), o.copy()]);
    const secret = o.create.connectionSecretName === undefined ? true : await getOrUndefined(o.consumer, secrets, o.create.connectionSecretName, 'default');
    return c?.status?.phase === 'Ready' && s !== undefined && secret !== undefined ? true : undefined;
  }, { context: o.context });
  must(await o.consumer.delete(o.resource, 'temp', { namespace: 'default' }));
  let bothTerminating = false;
  let consumerGoneBeforeCopy = false;
  let polls = 0;
  await waitFor('temp gone on both sides', async () => {
    polls++;
    const c = await getOrUndefined(o.consumer, o.resource, 'temp', 'default');
    const s = await o.copy();
    if (c?.metadata.deletionTimestamp !== undefined && s?.metadata.deletionTimestamp !== undefined) bothTerminating = true;
    if (c === undefined && s !== undefined) consumerGoneBeforeCopy = true;
    return c === undefined && s === undefined ? true : undefined;
  }, { context: o.context, intervalMs: 100 });
  return { bothTerminating, consumerGoneBeforeCopy, polls };
}

/**
 * What the restart scenario found once the restarted agent had converged.
 *
 * @example
 * ```ts
 * const r: RestartResult = { killedWith: 'SIGKILL', copiedAtKill: 1, live: ['k1'], copies: ['k1'], k1Size: 7, relatedInConsumer: ['k1'] };
 * ```
 */
export interface RestartResult {
  readonly killedWith: number | string;
  /** How many of k1..k4 had a copy when the agent was killed (at least one: the kill waits for it). */
  readonly copiedAtKill: number;
  /** The consumer's live objects (not being deleted), by name, sorted. */
  readonly live: readonly string[];
  /** The names the service copies point back to (one entry per copy), sorted. */
  readonly copies: readonly string[];
  /** k1's size on its copy (changed while the agent was down). */
  readonly k1Size: number | undefined;
  /** The names the agent's related copies in the consumer workspace point back to, sorted (k0's must be gone too). */
  readonly relatedInConsumer: readonly string[];
}

const db = (name: string, size = 1): Database => ({ metadata: { name, namespace: 'default' }, spec: { engine: 'postgres', size, connectionSecretName: `${name}-db` } });

/**
 * Kill -9 mid-sync, changes while the agent is down, restart, convergence:
 * k0 is synced; k1..k4 are created and the agent is killed as soon as one of them has a copy; while
 * it is down k5 is created, k2 deleted, k1 resized, and k0 forced away (finalizer stripped: its
 * copy is now an orphan). After the restart every live object must have exactly one copy (by uid),
 * be Ready with its Secret, k2 and k0 must have no copy, and k1's copy must have the new size.
 *
 * @example
 * ```ts
 * const r = await restartScenario({ consumer, resource, service, cluster, agent: () => agent, restart: () => (agent = startSyncAgent(files)), context });
 * ```
 * @param o - the consumer workspace, the resource, the service side, the workspace's logical cluster, the agent.
 * @returns what the converged state looks like.
 */
export async function restartScenario(o: {
  readonly consumer: ClusterClient;
  readonly resource: ResourceDescriptor<Database>;
  readonly service: ServiceSide;
  readonly cluster: string;
  readonly agent: () => SyncAgentProcess;
  readonly restart: () => SyncAgentProcess;
  readonly context: () => string;
}): Promise<RestartResult> {
  const apply = async (d: Database): Promise<void> => {
    must(await o.consumer.apply(o.resource, d, { fieldManager: 'consumer' }));
  };
  const copyNames = async (): Promise<string[]> => (await o.service.copiesFrom(o.cluster)).map((d) => backRef(d).name).sort();
  await apply(db('k0'));
  await waitFor('k0 copied', async () => ((await copyNames()).includes('k0') ? true : undefined), { context: o.context });
  await Promise.all(['k1', 'k2', 'k3', 'k4'].map((n) => apply(db(n))));
  const copiedAtKill = await waitFor('one of k1..k4 copied', async () => {
    const n = (await copyNames()).filter((c) => /^k[1-4]$/.test(c)).length;
    return n > 0 ? n : undefined;
  }, { context: o.context, intervalMs: 20 });
  const killedWith = await o.agent().kill();

  await apply(db('k5'));
  must(await o.consumer.delete(o.resource, 'k2', { namespace: 'default' }));
  must(await o.consumer.patch(o.resource, 'k1', { spec: { size: 7 } }, { type: 'merge', namespace: 'default' }));
  must(await o.consumer.patch(o.resource, 'k0', { metadata: { finalizers: null } }, { type: 'merge', namespace: 'default' }));
  must(await o.consumer.delete(o.resource, 'k0', { namespace: 'default' }));
  if (!(await copyNames()).includes('k0')) throw new Error('k0 should have an orphaned copy while the agent is down');

  const restarted = o.restart();
  const converged = await waitFor('the restarted agent to converge', async () => {
    const listed = must(await o.consumer.listAll(o.resource, { namespace: 'default' }));
    const live = listed.items.filter((d) => d.metadata.deletionTimestamp === undefined);
    if (listed.items.length !== live.length) return undefined;
    const copies = await o.service.copiesFrom(o.cluster);
    const byUid = new Map(copies.map((c) => [backRef(c).uid, c]));
    for (const d of live) {
      if (!byUid.has(d.metadata.uid ?? '') || d.status?.phase !== 'Ready') return undefined;
      if ((await getOrUndefined<Secret>(o.consumer, secrets, `${d.metadata.name ?? ''}-db`, 'default')) === undefined) return undefined;
    }
    if (copies.length !== live.length) return undefined;
    const k1 = copies.find((c) => backRef(c).name === 'k1');
    if (k1?.spec.size !== 7) return undefined;
    return { live: live.map((d) => d.metadata.name ?? '').sort(), copies: copies.map((c) => backRef(c).name).sort(), k1Size: k1.spec.size };
  }, { context: () => restarted.tail(60), timeoutMs: 120_000 });
  // The related copies in the workspace: one per live object. Given a moment to settle, then read
  // as they are, so a failure shows what is left over.
  const related = async (): Promise<string[]> => {
    const listed = must(await o.consumer.listAll(secrets, { namespace: 'default', labelSelector: 'sync.rxfleet.dev/related' }));
    return listed.items.map((x) => backRef(x).name).sort();
  };
  const settled = await waitFor('related copies in the workspace to match the live objects', async () => {
    const names = await related();
    return JSON.stringify(names) === JSON.stringify(converged.live) ? names : undefined;
  }, { timeoutMs: 20_000 }).catch(related);
  return { killedWith, copiedAtKill, ...converged, relatedInConsumer: settled };
}

/**
 * Runs `rxfleet-sync-agent` with this configuration text against the given kubeconfigs and waits for its
 * exit (killed after 60 s).
 *
 * @example
 * ```ts
 * const run = await badConfigRun(yaml.replace('kind: Database', 'kind: Nope'), files);
 * ```
 * @param yaml - the configuration.
 * @param files - the kubeconfig files.
 * @returns the exit code and output.
 */
export function badConfigRun(
  yaml: string,
  files: { readonly kcpKubeconfig: string; readonly serviceKubeconfig: string },
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> {
  const config = tempFile('bad.yaml', yaml);
  const args = ['--config', config, '--kcp-kubeconfig', files.kcpKubeconfig, '--service-kubeconfig', files.serviceKubeconfig, '--port', '0'];
  return runNode(cliArgs(args));
}
