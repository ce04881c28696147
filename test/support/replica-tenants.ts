// The fleet the HA tests and benchmark give examples/ha: tenant namespaces of one kube-apiserver,
// labelled with a selector of their own (so concurrent tests never share clusters), each holding
// input ConfigMaps, plus a loop that keeps changing inputs so that replicas are always writing.
import { randomBytes } from 'node:crypto';
import type { ClusterClient } from '../../src/client/index.js';
import { configMaps, namespaces } from '../../src/index.js';
import { pool } from './pool.js';
import { must } from './wait.js';

/** examples/ha's input label (examples/ha/controller.ts ROLE), repeated so support code needs no example import. */
const ROLE = 'rxfleet.io/ha-role';

/** Tenant namespaces made for one test. */
export interface Tenants {
  /** TENANT_SELECTOR for the replicas. */
  readonly selector: string;
  /** The namespaces, which are the clusters' names. */
  readonly names: readonly string[];
}

/**
 * Creates `n` namespaces `<group>-<i>` (i zero-padded to 3 digits) labelled
 * `rxfleet.io/ha-test=<group>`. The group must be new on the server: pass a random one
 * (`randomGroup`) unless the test needs cluster names it can predict.
 *
 * @example
 * const t = await createTenants(client, 36, randomGroup('shard'));
 * startReplica(build, { ..., tenantSelector: t.selector });
 */
export async function createTenants(client: ClusterClient, n: number, group: string): Promise<Tenants> {
  const names = Array.from({ length: n }, (_, i) => `${group}-${String(i).padStart(3, '0')}`);
  await addTenants(client, group, names);
  return { selector: `rxfleet.io/ha-test=${group}`, names };
}

/**
 * `<prefix>-<6 random hex digits>`: a tenant group no other test uses.
 *
 * @example
 * randomGroup('lead'); // 'lead-3fa2c1'
 */
export function randomGroup(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Adds namespaces to an existing group (its selector's value).
 *
 * @example
 * await addTenants(client, t.selector.split('=')[1] ?? '', ['late-1']);
 */
export async function addTenants(client: ClusterClient, group: string, names: readonly string[]): Promise<void> {
  await pool(names, 8, async (name) => {
    must(await client.apply(namespaces, { metadata: { name, labels: { 'rxfleet.io/ha-test': group } } }, { fieldManager: 'ha-test' }), `create namespace ${name}`);
  });
}

/**
 * Creates or changes the input `name` in namespace `ns` (data `{ n }`).
 *
 * @example
 * await putInput(client, 'tenant-000', 'settings', 1);
 */
export async function putInput(client: ClusterClient, ns: string, name: string, n: number): Promise<void> {
  must(await client.apply(configMaps, { metadata: { name, namespace: ns, labels: { [ROLE]: 'input' } }, data: { n: String(n) } }, { fieldManager: 'ha-test', force: true }), `apply input ${ns}/${name}`);
}

/**
 * Puts input `name` in every namespace (8 writes at a time).
 *
 * @example
 * await putInputs(client, t.names, 'settings', 0);
 */
export async function putInputs(client: ClusterClient, nss: readonly string[], name: string, n: number): Promise<void> {
  await pool(nss, 8, (ns) => putInput(client, ns, name, n));
}

/** A running loop of input changes. */
export interface Churn {
  /** Stops the loop; resolves with how many changes it made. Rejects if a change failed. */
  stop(): Promise<number>;
}

/**
 * Changes input `name` in each of `nss`, one round every `everyMs`, until stopped: replicas keep
 * reconciling (and writing) throughout, so a hand-over happens with writes in flight.
 *
 * @example
 * const churn = churnInputs(client, t.names, 'settings', 100);
 * // ... signals ...
 * expect(await churn.stop()).toBeGreaterThan(0);
 */
export function churnInputs(client: ClusterClient, nss: readonly string[], name: string, everyMs: number): Churn {
  const state = { stopped: false };
  let count = 0;
  const loop = (async () => {
    while (!state.stopped) {
      const started = Date.now();
      await putInputs(client, nss, name, ++count);
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
    return count;
  })();
  // Kept for stop(); without a handler a failure before stop() would be an unhandled rejection.
  loop.catch(() => undefined);
  return {
    stop: () => {
      state.stopped = true;
      return loop;
    },
  };
}
