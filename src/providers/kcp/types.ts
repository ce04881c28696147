// The kcp objects the kcp providers read, typed just enough, with their resource descriptors.
// Versions are the ones kcp v0.28.1 serves (checked against the binary): APIExportEndpointSlice
// and LogicalCluster in v1alpha1, APIBinding in v1alpha1 and v1alpha2 (the APIExport virtual
// workspace serves both; v1alpha1 is read because the phase and conditions are the same).
import type { KubeObject } from '../../core/object.js';
import { resource } from '../../core/resource.js';

/** The annotation kcp puts on every object: its logical cluster's name. @example `obj.metadata.annotations?.[clusterAnnotation]` */
export const clusterAnnotation = 'kcp.io/cluster';

/** The annotation kcp puts on LogicalClusters (and some kcp objects): the workspace path, e.g. `root:org:ws`. @example `lc.metadata.annotations?.[pathAnnotation]` */
export const pathAnnotation = 'kcp.io/path';

/** One `status.conditions[]` entry of a kcp object. @example `{ type: 'Ready', status: 'True' }` */
export interface KcpCondition {
  /** The condition, e.g. `Ready`. */
  readonly type: string;
  /** `True`, `False` or `Unknown`. */
  readonly status: string;
  /** Why, in one CamelCase word. */
  readonly reason?: string;
  /** Why, in words. */
  readonly message?: string;
}

/**
 * An `APIExportEndpointSlice`: where the virtual workspace of an export is served, one URL per shard.
 *
 * @example
 * ```ts
 * const urlsOfSlice = (slice: APIExportEndpointSlice): string[] => (slice.status?.endpoints ?? []).map((e) => e.url);
 * ```
 */
export interface APIExportEndpointSlice extends KubeObject {
  /** Which export it serves. */
  readonly spec?: {
    /** The APIExport's workspace path and name. */
    readonly export?: ExportReference;
  };
  /** Where the export is served. */
  readonly status?: {
    /** One entry per shard serving the export's virtual workspace; empty until the first binding. */
    readonly endpoints?: readonly {
      /** `https://<shard>/services/apiexport/<provider logical cluster>/<export>`. */
      readonly url: string;
    }[];
    /** The slice's conditions. */
    readonly conditions?: readonly KcpCondition[];
  };
}

/**
 * Where an APIExport lives: its workspace path and name.
 *
 * @example
 * ```ts
 * const ref: ExportReference = { path: 'root:provider', name: 'widgets.example.com' };
 * ```
 */
export interface ExportReference {
  /** The provider workspace's path (the binding's own workspace when absent). */
  readonly path?: string;
  /** The APIExport's name. */
  readonly name?: string;
}

/**
 * An `APIBinding` of a consumer workspace, as the APIExport virtual workspace shows it.
 *
 * @example
 * ```ts
 * const bound = binding.status?.phase === 'Bound';
 * ```
 */
export interface APIBinding extends KubeObject {
  /** What it binds. */
  readonly spec?: {
    /** The export bound. */
    readonly reference?: {
      /** Its workspace path and name. */
      readonly export?: ExportReference;
    };
  };
  /** How far the binding got. */
  readonly status?: {
    /** `Binding`, then `Bound`. */
    readonly phase?: string;
    /** The logical cluster of the export's workspace. */
    readonly apiExportClusterName?: string;
    /** The binding's conditions (`Ready` among them). */
    readonly conditions?: readonly KcpCondition[];
  };
}

/**
 * A `LogicalCluster` (always named `cluster` inside its workspace).
 *
 * @example
 * ```ts
 * const pending = lc.status?.initializers ?? [];
 * ```
 */
export interface LogicalCluster extends KubeObject {
  /** The workspace's state. */
  readonly status?: {
    /** `Initializing`, then `Ready`. */
    readonly phase?: string;
    /** The initializers still to run (`<type's logical cluster>:<type name>`); each removes itself when done. */
    readonly initializers?: readonly string[];
    /** The workspace's URL. */
    readonly URL?: string;
  };
}

/**
 * A `WorkspaceType`; an initializer type lists its initializing virtual workspace URLs in status.
 *
 * @example
 * ```ts
 * const initializingUrls = (wt: WorkspaceType): string[] => (wt.status?.virtualWorkspaces ?? []).map((v) => v.url);
 * ```
 */
export interface WorkspaceType extends KubeObject {
  /** What workspaces of the type get. */
  readonly spec?: {
    /** True when workspaces of this type wait for an initializer named after it. */
    readonly initializer?: boolean;
  };
  /** Where the type is served. */
  readonly status?: {
    /** The virtual workspaces of the type, `…/initializingworkspaces/<initializer>` among them. */
    readonly virtualWorkspaces?: readonly {
      /** One virtual workspace's URL. */
      readonly url: string;
    }[];
  };
}

/** `apis.kcp.io/v1alpha1` APIExportEndpointSlices. @example `client.get(apiExportEndpointSlices, 'widgets.example.com')` */
export const apiExportEndpointSlices = resource<APIExportEndpointSlice>({
  group: 'apis.kcp.io',
  version: 'v1alpha1',
  plural: 'apiexportendpointslices',
  kind: 'APIExportEndpointSlice',
  namespaced: false,
});

/** `apis.kcp.io/v1alpha1` APIBindings. @example `client.list(apiBindings)` */
export const apiBindings = resource<APIBinding>({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apibindings', kind: 'APIBinding', namespaced: false });

/** `core.kcp.io/v1alpha1` LogicalClusters. @example `client.get(logicalClusters, 'cluster')` */
export const logicalClusters = resource<LogicalCluster>({ group: 'core.kcp.io', version: 'v1alpha1', plural: 'logicalclusters', kind: 'LogicalCluster', namespaced: false });

/** `tenancy.kcp.io/v1alpha1` WorkspaceTypes. @example `client.get(workspaceTypes, 'my-type')` */
export const workspaceTypes = resource<WorkspaceType>({ group: 'tenancy.kcp.io', version: 'v1alpha1', plural: 'workspacetypes', kind: 'WorkspaceType', namespaced: false });

/**
 * The logical cluster an object lives in, from its `kcp.io/cluster` annotation.
 *
 * @example
 * ```ts
 * logicalClusterOf({ metadata: { annotations: { 'kcp.io/cluster': '2x9k' } } }); // '2x9k'
 * ```
 * @param obj - an object read from kcp.
 * @returns the logical cluster name, or `undefined` when the annotation is missing or empty.
 */
export function logicalClusterOf(obj: KubeObject): string | undefined {
  const v = obj.metadata.annotations?.[clusterAnnotation];
  return v === undefined || v === '' ? undefined : v;
}
