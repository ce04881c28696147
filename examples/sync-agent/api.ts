// The service cluster's API in the sync-agent example: a Database CRD, as a database operator
// would install it. The agent publishes it into kcp (examples/sync-agent/config.yaml); the
// stand-in operator (operator.ts) serves it. The group is a parameter so tests can install it
// under a group of their own.
import type { ClusterClient } from 'rxfleet/client';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import { customResourceDefinitions, isLeft, resource } from 'rxfleet';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from 'rxfleet/resources';

/** The example's API group on the service cluster (config.yaml names it). */
export const DEFAULT_GROUP = 'db.example.dev';

/**
 * What a consumer asks for.
 *
 * @example
 * ```ts
 * const spec: DatabaseSpec = { engine: 'postgres', size: 1, connectionSecretName: 'orders-db' };
 * ```
 */
export interface DatabaseSpec {
  readonly engine: string;
  readonly size: number;
  /** Where the operator writes the connection details (a Secret in the instance's namespace). */
  readonly connectionSecretName?: string;
}

/**
 * What the operator reports (synced up to the consumer's object as a whole).
 *
 * @example
 * ```ts
 * const status: DatabaseStatus = { phase: 'Ready', endpoint: 'orders.ns.svc:5432', observedSize: 1 };
 * ```
 */
export interface DatabaseStatus {
  readonly phase?: 'Provisioning' | 'Ready';
  /** When provisioning started (ISO time): the operator turns Ready a moment after it. */
  readonly since?: string;
  readonly endpoint?: string;
  readonly observedSize?: number;
  readonly observedGeneration?: number;
  /** Free text (an admin's note on the service side, for example). */
  readonly message?: string;
}

/**
 * A Database instance.
 *
 * @example
 * ```ts
 * const db: Database = { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1 } };
 * ```
 */
export interface Database extends KubeObject {
  readonly spec: DatabaseSpec;
  readonly status?: DatabaseStatus;
}

/**
 * The Database resource in `group` (version v1) on the service cluster.
 *
 * @example
 * ```ts
 * const r = databasesIn('db.example.dev');
 * ```
 * @param group - the API group.
 * @param version - the version to read and write (default v1).
 * @returns the resource descriptor.
 */
export function databasesIn(group: string, version = 'v1'): ResourceDescriptor<Database> {
  return resource<Database>({ group, version, plural: 'databases', kind: 'Database', namespaced: true });
}

const specSchema = {
  type: 'object',
  required: ['engine', 'size'],
  properties: { engine: { type: 'string', enum: ['postgres', 'mysql'] }, size: { type: 'integer', minimum: 1 }, connectionSecretName: { type: 'string' } },
};
const statusSchema = {
  type: 'object',
  properties: {
    phase: { type: 'string' },
    since: { type: 'string' },
    endpoint: { type: 'string' },
    observedSize: { type: 'integer' },
    observedGeneration: { type: 'integer' },
    message: { type: 'string' },
  },
};

function version(name: string, storage: boolean, extraSpec: Record<string, unknown> = {}): CustomResourceDefinitionVersion {
  const spec = { ...specSchema, properties: { ...specSchema.properties, ...extraSpec } };
  return {
    name,
    served: true,
    storage,
    subresources: { status: {} },
    additionalPrinterColumns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
    schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: statusSchema } } },
  };
}

/**
 * The Database CRD. `withV2` adds a served (not storage) version v2 with a `backup` field: the
 * CRD change the e2e test rolls out to kcp (a new APIResourceSchema).
 *
 * @example
 * ```ts
 * await client.apply(customResourceDefinitions, databaseCrd('db.example.dev'), { fieldManager: 'installer' });
 * ```
 * @param group - the API group.
 * @param options - `withV2` adds version v2.
 * @returns the CRD object.
 */
export function databaseCrd(group: string, options: { readonly withV2?: boolean } = {}): CustomResourceDefinition {
  const versions = [version('v1', true)];
  if (options.withV2 === true) versions.push(version('v2', false, { backup: { type: 'boolean' } }));
  return {
    metadata: { name: `databases.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural: 'databases', singular: 'database', kind: 'Database', listKind: 'DatabaseList' }, versions },
  };
}

/**
 * Installs (server-side applies) the CRD on the service cluster. Examples and tests only: a real
 * operator ships its CRDs with its deployment.
 *
 * @example
 * ```ts
 * await installDatabaseCrd(serviceClient, 'db.example.dev');
 * ```
 * @param client - a client of the service cluster.
 * @param group - the API group.
 * @param options - as for {@link databaseCrd}.
 * @throws Error with the server's answer when the write fails.
 */
export async function installDatabaseCrd(client: ClusterClient, group: string, options: { readonly withV2?: boolean } = {}): Promise<void> {
  const applied = await client.apply(customResourceDefinitions, databaseCrd(group, options), { fieldManager: 'sync-agent-example', force: true });
  if (isLeft(applied)) throw new Error(`installing the Database CRD in ${group}: ${applied.left.message}`);
}
