// The service side of the sync-agent tenancy test, built on the e2e test's own (startService: the
// example's Database CRD and stand-in operator on the shared kube-apiserver): the CRD gains
// `spec.configName` (a ConfigMap the consumer sends down), a second stand-in controller reports
// that ConfigMap's tier in `status.message` (the "config tier" of issue 28), and the agent's
// configuration puts every workspace's copies in ONE service namespace (`naming.namespace`).
import { randomBytes } from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { pino } from 'pino';
import type { ConfigMap, Controller, ResourceDescriptor, RunHandle } from '../../src/index.js';
import { configMaps, controller, customResourceDefinitions, done, objectKey, run, toAction } from '../../src/index.js';
import { mapToKeys } from '../../src/operators/index.js';
import { E } from '../../src/fp/index.js';
import { singleClusterProvider } from '../../src/providers/single/index.js';
import { patch } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databaseCrd } from '../../examples/sync-agent/api.js';
import type { RelatedResource, SyncConfig } from '../../packages/sync-agent/src/types.js';
import { waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';

/**
 * The service side of the tenancy test.
 *
 * @example
 * ```ts
 * const svc = await startTenancyService(kas.kubeconfigYaml('admin'));
 * ```
 */
export interface TenancyService extends ServiceSide {
  /** The one service namespace every workspace's copies land in. */
  readonly sharedNamespace: string;
  /** The agent's configuration: shared namespace, a connection Secret up and a config ConfigMap down. */
  readonly tenancyConfigYaml: string;
}

type TieredDatabase = Database & { readonly spec: Database['spec'] & { readonly configName?: string } };

/** The tier a copy's ConfigMap says, in the words the test reads from the consumer's status. */
export const tierMessage = (tier: string): string => `config tier ${tier}`;

/**
 * What a shared-namespace configuration may change: the related objects, whether status syncs up,
 * the name template.
 *
 * @example
 * ```ts
 * const o: SharedNamespaceOptions = { related: [], syncUp: false };
 * ```
 */
export interface SharedNamespaceOptions {
  /** The published resource's related objects (default: none). */
  readonly related?: readonly RelatedResource[];
  /** Whether the service side's status goes up to the consumer (default true). */
  readonly syncUp?: boolean;
  /** The name template (default: workspace, namespace and name). */
  readonly name?: string;
}

/**
 * The agent configuration publishing the service's Databases with every workspace's copies in
 * `namespace` (the documented `naming.namespace` option; the name template tells workspaces apart).
 *
 * @example
 * ```ts
 * const config = sharedNamespaceSyncConfig(svc, svc.sharedNamespace, { related: [{ identifier: 'lock', origin: 'kcp', resource: 'leases', group: 'coordination.k8s.io', object: { path: 'spec.configName' } }] });
 * ```
 * @param svc - the service side (group, export, agent name).
 * @param namespace - the shared service namespace.
 * @param o - the related objects, status up, the name template.
 * @returns the configuration.
 */
export function sharedNamespaceSyncConfig(svc: ServiceSide, namespace: string, o: SharedNamespaceOptions = {}): SyncConfig {
  const name = o.name ?? '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}';
  return {
    agentName: svc.agentName,
    apiExport: svc.exportName,
    published: [
      {
        name: 'databases',
        crd: { group: svc.group, kind: 'Database' },
        naming: { namespace, name },
        ...(o.syncUp === false ? {} : { syncUp: { status: true } }),
        related: o.related ?? [],
      },
    ],
  };
}

/**
 * The tenancy test's agent configuration with every workspace's copies in `namespace`: a
 * connection Secret up and a config ConfigMap down.
 *
 * @example
 * ```ts
 * const yaml = sharedNamespaceConfig(svc, 'tenancy-shared-1a2b');
 * ```
 * @param svc - the service side (group, export, agent name).
 * @param namespace - the shared service namespace.
 * @param name - the name template (default: workspace, namespace and name).
 * @returns the configuration text (JSON, valid YAML).
 */
export function sharedNamespaceConfig(svc: ServiceSide, namespace: string, name?: string): string {
  const related: RelatedResource[] = [
    { identifier: 'connection', origin: 'service', kind: 'Secret', object: { path: 'spec.connectionSecretName' } },
    { identifier: 'config', origin: 'kcp', kind: 'ConfigMap', object: { path: 'spec.configName' } },
  ];
  return JSON.stringify(sharedNamespaceSyncConfig(svc, namespace, name === undefined ? { related } : { related, name }));
}

/**
 * Starts the e2e test's service side, widens its CRD with `spec.configName`, and runs the tier
 * reporter next to the example's operator.
 *
 * @example
 * ```ts
 * const svc = await startTenancyService(yaml);
 * await svc.stop();
 * ```
 * @param kubeconfigYaml - the service cluster's admin kubeconfig.
 * @param extraSpecFields - more string fields the CRD's spec gains (besides `configName`).
 * @returns the service side.
 */
export async function startTenancyService(kubeconfigYaml: string, extraSpecFields: readonly string[] = []): Promise<TenancyService> {
  const svc = await startService(kubeconfigYaml, { readyAfterMs: 200 });
  const crd = databaseCrd(svc.group) as ReturnType<typeof databaseCrd> & { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } };
  const fields = ['configName', ...extraSpecFields];
  for (const v of crd.spec.versions) for (const f of fields) v.schema.openAPIV3Schema.properties.spec.properties[f] = { type: 'string' };
  const widened = await svc.client.apply(customResourceDefinitions, crd, { fieldManager: 'sync-agent-example', force: true });
  if (E.isLeft(widened)) throw new Error(`widening the Database CRD: ${widened.left.message}`);
  await waitFor(`spec.${fields.join(', spec.')} kept by the CRD`, async () => {
    const got = await svc.client.get(customResourceDefinitions, `databases.${svc.group}`);
    return E.isRight(got) && fields.every((f) => JSON.stringify(got.right).includes(f)) ? true : undefined;
  });
  const tiers: RunHandle = await run(tierReporter(kubeconfigYaml, svc), { logger: pino({ level: 'silent' }), http: false, signals: false });
  const sharedNamespace = `tenancy-shared-${randomBytes(3).toString('hex')}`;
  return {
    ...svc,
    sharedNamespace,
    tenancyConfigYaml: sharedNamespaceConfig(svc, sharedNamespace),
    stop: async () => {
      await tiers.stop({ deadlineMs: 5_000 });
      await svc.stop();
    },
  };
}

// What a service operator does with a ConfigMap the consumer sends: reads it by the name in the
// copy's spec, in the copy's namespace, and reports its tier. Knows nothing of kcp or the agent.
function tierReporter(kubeconfigYaml: string, svc: ServiceSide): Controller<TieredDatabase> {
  const databases = svc.databases as unknown as ResourceDescriptor<TieredDatabase>;
  return controller<TieredDatabase>({
    name: 'tier-reporter',
    provider: singleClusterProvider({ name: 'service', kubeconfig: { yaml: kubeconfigYaml } }),
    resource: databases,
    // A ConfigMap change wakes the Databases of its namespace that name it.
    inputs: (ic) => [
      ic.fleetWatch(configMaps).pipe(
        mapToKeys(databases, (ev) => {
          const c = ic.fleet.get(ev.key.cluster);
          const same = c === undefined ? [] : ic.informers.informer(c, databases).store.byIndex('namespace', ev.key.namespace);
          return same.filter((d) => d.spec.configName === ev.key.name).map((d) => objectKey(ev.key.cluster, ev.key.namespace, d.metadata.name ?? ''));
        }),
      ),
    ],
    reconcile: async (req, ctx) => {
      const db = req.object;
      const name = db?.spec.configName;
      if (db === undefined || name === undefined || db.metadata.deletionTimestamp !== undefined) return done();
      const cm = await ctx.fleet.get(req.cluster)?.client.get<ConfigMap>(configMaps, name, { namespace: db.metadata.namespace ?? '' });
      const tier = cm !== undefined && E.isRight(cm) ? (cm.right.data?.tier ?? 'none') : 'missing';
      if (db.status?.message === tierMessage(tier)) return done();
      return firstValueFrom(patch(ctx.sinks, { key: req.key, resource: databases, subresource: 'status', patch: { status: { message: tierMessage(tier) } }, current: db }).pipe(toAction()));
    },
  });
}
