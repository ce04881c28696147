// The options of the per-cluster client's calls: reads, watches, writes, patches and deletes.
import type { KubeError } from '../core/errors.js';

/** Options of `get`. @example `{ namespace: 'default' }` */
export interface GetOptions {
  /** Namespace of the object; needed for namespaced resources, ignored for cluster-scoped ones. */
  readonly namespace?: string;
  /** Subresource to read instead of the object itself, e.g. `status` or `scale`. */
  readonly subresource?: string;
  /** Gives up when no response headers came within this long; default the client's `headersTimeoutMs` (10 s). */
  readonly timeoutMs?: number;
}

/** Options of `list` and `listAll`. @example `{ namespace: 'default', labelSelector: 'app=web', limit: 500 }` */
export interface ListOptions {
  /** Namespace to list; absent lists all namespaces (ignored for cluster-scoped resources). */
  readonly namespace?: string;
  /** Label selector in Kubernetes syntax, e.g. `app=web,tier!=db`; absent matches every object. */
  readonly labelSelector?: string;
  /** Field selector, e.g. `metadata.name=settings` (only the fields the resource supports); absent matches every object. */
  readonly fieldSelector?: string;
  /** Maximum items per page (the server may return fewer); absent means no paging for `list`, 500 per page for `listAll`. */
  readonly limit?: number;
  /** The previous page's `metadata.continue`, to fetch the next page. */
  readonly continue?: string;
  /** Snapshot to read, interpreted per `resourceVersionMatch` (`'0'`: any cached state); absent reads the latest state. */
  readonly resourceVersion?: string;
  /** Whether `resourceVersion` must match exactly or is a lower bound; only with `resourceVersion`. */
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

/** Options of `watch`. Bookmarks are asked for unless `allowWatchBookmarks: false`. @example `{ resourceVersion: '42', timeoutSeconds: 300 }` */
export interface WatchOptions {
  /** Namespace to watch; absent watches all namespaces (ignored for cluster-scoped resources). */
  readonly namespace?: string;
  /** Label selector in Kubernetes syntax, e.g. `app=web`; only matching objects' events are sent. */
  readonly labelSelector?: string;
  /** Field selector, e.g. `metadata.name=settings`; only matching objects' events are sent. */
  readonly fieldSelector?: string;
  /** Start after this resourceVersion (usually a list's); absent starts with ADDED events for every current object. Too old a version is answered with 410 Gone. */
  readonly resourceVersion?: string;
  /** Only with `sendInitialEvents`, and then `'NotOlderThan'`; leave it out otherwise. */
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Whether the server may send BOOKMARK events carrying fresh resourceVersions; default true. */
  readonly allowWatchBookmarks?: boolean;
  /** Stream the current objects as ADDED events first, ended by a bookmark (watch-list); needs bookmarks and `resourceVersionMatch: 'NotOlderThan'`. */
  readonly sendInitialEvents?: boolean;
  /** Seconds after which the server ends the watch cleanly; absent lets the server choose (typically 30 to 60 minutes). */
  readonly timeoutSeconds?: number;
}

/** What bounds and guards every write and delete: its timeout and its fence. @example `{ timeoutMs: 5_000, fence: () => undefined }` */
export interface WriteLimits {
  /** Gives up when no response headers came within this long; default: connect and handshake within the client's `headersTimeoutMs` (10 s), the answer within its `timeoutMs` (60 s). */
  readonly timeoutMs?: number;
  /**
   * Asked synchronously right before the request is sent (and again when it gets its socket): a
   * `KubeError` returned is the call's result and nothing is sent. The runtime sets it on every
   * write of a replica under leader election or sharding, so that a replica that lost its lease
   * or its cluster never writes (`Fenced`).
   */
  readonly fence?: () => KubeError | undefined;
}

/** Options common to writes. @example `{ fieldManager: 'my-controller', dryRun: true }` */
export interface WriteOptions extends WriteLimits {
  /** Name of the actor making the change, recorded in `managedFields`; absent lets the server derive one from the user agent. */
  readonly fieldManager?: string;
  /** Validate and run admission without persisting anything (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
  /** What the server does with unknown or duplicate fields: reject the request (`Strict`), warn, or drop them silently; absent means the server's default (`Warn`). */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Namespace when the object does not carry one. */
  readonly namespace?: string;
  /** Subresource to write instead of the object, e.g. `status` or `scale`; ignored by `create`. */
  readonly subresource?: string;
}

/** Options of server-side apply: a field manager is required. @example `{ fieldManager: 'my-controller', force: true }` */
export interface ApplyOptions extends WriteOptions {
  /** Field manager that owns the applied fields; keep it stable per controller, since fields it stops applying are removed. */
  readonly fieldManager: string;
  /** Take over fields another manager owns instead of failing with Conflict; default false. */
  readonly force?: boolean;
}

/** The patch formats Kubernetes accepts. @example `'merge'` */
export type PatchType = 'merge' | 'json' | 'strategic';

/** Options of `patch`. @example `{ type: 'merge', namespace: 'default', subresource: 'status' }` */
export interface PatchOptions extends WriteOptions {
  /** Format of the patch: JSON merge patch, JSON patch, or strategic merge patch (built-in kinds only). */
  readonly type: PatchType;
}

/** Options of `delete`. @example `{ namespace: 'default', preconditions: { uid }, propagationPolicy: 'Foreground' }` */
export interface DeleteOptions extends WriteLimits {
  /** Namespace of the object; needed for namespaced resources, ignored for cluster-scoped ones. */
  readonly namespace?: string;
  /** Delete only if the object still has this uid and/or resourceVersion, else fail with Conflict; absent deletes unconditionally. */
  readonly preconditions?: {
    /** Expected `metadata.uid`: guards against deleting a recreated object of the same name. */
    readonly uid?: string;
    /** Expected `metadata.resourceVersion`: guards against deleting an object changed since it was read. */
    readonly resourceVersion?: string;
  };
  /** How dependents are garbage-collected: before the owner (`Foreground`), after it (`Background`), or not at all (`Orphan`); absent uses the resource's default, usually `Background`. */
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Seconds the object gets to terminate before it is removed (0: immediately); absent uses the object's own default. */
  readonly gracePeriodSeconds?: number;
  /** Validate the deletion without deleting anything (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}
