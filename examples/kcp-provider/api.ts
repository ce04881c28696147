// The MongoDB API of the kcp-provider example: what a service provider exports from its kcp
// workspace (an APIResourceSchema and an APIExport) and consumers bind and create instances of.
import type { ClusterClient } from 'rxfleet/client';
import type { KubeObject } from 'rxfleet';
import { isLeft, resource } from 'rxfleet';

export const GROUP = 'databases.example.dev';
/** The export's default name (`--export` overrides it). */
export const DEFAULT_EXPORT = `mongodbs.${GROUP}`;

export interface MongoDBSpec {
  readonly version: string;
  readonly storageGB: number;
}

/** Written back by the provider's controller, through the consumer workspace's own client only. */
export interface MongoDBStatus {
  readonly phase?: string;
  readonly endpoint?: string;
  readonly observedGeneration?: number;
}

export interface MongoDB extends KubeObject {
  readonly spec: MongoDBSpec;
  readonly status?: MongoDBStatus;
}

export const mongodbs = resource<MongoDB>({ group: GROUP, version: 'v1alpha1', plural: 'mongodbs', kind: 'MongoDB', namespaced: true });

// kcp's own API objects, as far as the installer needs them.
const apiResourceSchemas = resource({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apiresourceschemas', kind: 'APIResourceSchema', namespaced: false });
const apiExports = resource({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false });

/** The schema's name: `<prefix>.<plural>.<group>` (a schema is immutable: a new version gets a new prefix). */
export const SCHEMA = `v1.mongodbs.${GROUP}`;

/** The APIResourceSchema: namespaced, with a status subresource so consumers cannot write status. */
export const mongoSchema: KubeObject = {
  metadata: { name: SCHEMA },
  spec: {
    group: GROUP,
    names: { kind: 'MongoDB', listKind: 'MongoDBList', plural: 'mongodbs', singular: 'mongodb' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', required: ['version', 'storageGB'], properties: { version: { type: 'string' }, storageGB: { type: 'integer', minimum: 1 } } },
            status: { type: 'object', properties: { phase: { type: 'string' }, endpoint: { type: 'string' }, observedGeneration: { type: 'integer' } } },
          },
        },
      },
    ],
  },
};

/** The APIExport of the schema, under `name`. */
export function mongoExport(name: string): KubeObject {
  return { metadata: { name }, spec: { resources: [{ group: GROUP, name: 'mongodbs', schema: SCHEMA, storage: { crd: {} } }] } };
}

/**
 * Installs the schema and the export in the provider workspace (examples and tests only: a real
 * provider ships them with its deployment). Idempotent.
 *
 * @param client - a client of the provider workspace.
 * @param exportName - the APIExport's name.
 * @throws Error with the server's answer when a write fails.
 */
export async function installMongoApi(client: ClusterClient, exportName: string): Promise<void> {
  for (const [r, obj] of [
    [apiResourceSchemas, mongoSchema],
    [apiExports, mongoExport(exportName)],
  ] as const) {
    const applied = await client.apply(r, obj, { fieldManager: 'kcp-provider-installer', force: true });
    if (isLeft(applied)) throw new Error(`installing ${r.kind} ${obj.metadata.name ?? ''}: ${applied.left.message}`);
  }
}
