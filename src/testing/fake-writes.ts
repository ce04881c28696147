// What the in-memory API server does with a write, synchronously: the status subresource, stale
// resourceVersions, generation, finalizers and deletionTimestamp, server-side apply and patches.
// Every answer is an Either shaped like the real client's, built from a Status as the server's is.
import type { ApplyOptions, DeleteOptions, PatchOptions, WriteOptions } from '../client/call-options.js';
import { resourcePath } from '../client/paths.js';
import type { KubeError, Status } from '../core/errors.js';
import { fromStatus } from '../core/errors.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { ClusterState, StoredObject } from './fake-store.js';
import type { JsonMap } from './json-fields.js';
import { cloneJson, deepEqual, isMap, mergePatch } from './json-fields.js';
import { jsonPatch } from './json-patch.js';
import type { ManagedSet } from './ssa-merge.js';
import { applyMerge, managedFieldsOf, updateOwnership } from './ssa-merge.js';

/** An answer of the in-memory server. @example `const r: Answer<ConfigMap> = E.right(cm);` */
export type Answer<T> = Either<KubeError, T>;

/**
 * Where a request goes and who sends it.
 *
 * @example
 * ```ts
 * const t: Target = { r: configMaps, namespace: 'default', name: 'a', subresource: '' };
 * ```
 */
export interface Target {
  /** The resource. */
  readonly r: ResourceDescriptor;
  /** The namespace (`''` for cluster-scoped resources). */
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
  /** `''` for the object, `status` for the status subresource. */
  readonly subresource: string;
}

/**
 * Builds the error a real server would answer with, through the same mapping as the real client.
 *
 * @example
 * ```ts
 * serverError(state, 'GET', t, 404, 'NotFound', 'configmaps "a" not found');
 * ```
 * @param state - the cluster.
 * @param method - the HTTP method.
 * @param t - the target.
 * @param code - the HTTP status.
 * @param reason - the Status reason.
 * @param message - the Status message.
 * @param extra - causes and Retry-After.
 * @returns the error.
 */
export function serverError(
  state: ClusterState,
  method: string,
  t: Target,
  code: number,
  reason: string,
  message: string,
  extra: { readonly causes?: readonly JsonMap[]; readonly retryAfterSeconds?: number } = {},
): KubeError {
  const path = resourcePath(t.r, { namespace: t.namespace, ...(t.name === '' ? {} : { name: t.name }), ...(t.subresource === '' ? {} : { subresource: t.subresource }) });
  const details = { name: t.name, kind: t.r.plural, ...(t.r.group === '' ? {} : { group: t.r.group }), ...extra };
  const status: Status = { kind: 'Status', status: 'Failure', code, reason, message, details };
  return fromStatus(state.cluster, code, status, { request: `${method} ${path}`, ...(extra.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds }) });
}

const what = (t: Target): string => `${t.r.group === '' ? t.r.plural : `${t.r.plural}.${t.r.group}`} "${t.name}"`;
const notFound = (s: ClusterState, m: string, t: Target): KubeError => serverError(s, m, t, 404, 'NotFound', `${what(t)} not found`);
const stale = (s: ClusterState, m: string, t: Target): KubeError =>
  serverError(s, m, t, 409, 'Conflict', `Operation cannot be fulfilled on ${what(t)}: the object has been modified; please apply your changes to the latest version and try again`);

// Fields the server keeps, whatever the request says.
const serverMeta = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'name', 'namespace'] as const;

function metaOf(o: unknown): JsonMap {
  return isMap(o) && isMap(o.metadata) ? o.metadata : {};
}

// Everything the generation counts: the object without metadata and status.
function specOf(o: JsonMap): JsonMap {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/**
 * The write semantics of one cluster, given which resources have a status subresource (and so a
 * generation).
 *
 * @example
 * ```ts
 * const w = serverWrites(state, (r: ResourceDescriptor) => r.kind !== 'ConfigMap');
 * ```
 * @param state - the cluster.
 * @param hasStatus - whether a resource has a status subresource and a generation.
 * @returns the operations.
 */
export function serverWrites(state: ClusterState, hasStatus: (r: ResourceDescriptor) => boolean) {
  // Stores `proposed` as the new state of `t` (after `before`): scoping to the subresource, server
  // metadata, the finalizer rule, generation, no-op detection, and deletion once the last finalizer goes.
  const store = (method: string, t: Target, before: StoredObject | undefined, proposed: JsonMap, sets: readonly ManagedSet[], dryRun: boolean): Answer<KubeObject> => {
    const old = before === undefined ? undefined : (cloneJson(before.object) as unknown as JsonMap);
    let next: JsonMap;
    if (t.subresource === 'status') next = { ...(old ?? {}), ...(proposed.status === undefined ? {} : { status: proposed.status }) };
    else {
      next = { ...proposed };
      if (hasStatus(t.r)) {
        if (old?.status === undefined) Reflect.deleteProperty(next, 'status');
        else next.status = old.status;
      }
    }
    if (t.subresource === 'status' && proposed.status === undefined) Reflect.deleteProperty(next, 'status');
    const meta: JsonMap = { ...(t.subresource === 'status' ? metaOf(old) : metaOf(next)) };
    Reflect.deleteProperty(meta, 'managedFields');
    Reflect.deleteProperty(meta, 'resourceVersion');
    for (const k of serverMeta) {
      const v = metaOf(old)[k];
      if (v === undefined) Reflect.deleteProperty(meta, k);
      else meta[k] = v;
    }
    meta.name = t.name;
    if (t.r.namespaced) meta.namespace = t.namespace;
    if (old === undefined) {
      meta.uid = state.uid();
      meta.creationTimestamp = state.timestamp();
      if (hasStatus(t.r)) meta.generation = 1;
    } else if (hasStatus(t.r) && !deepEqual(specOf(old), specOf(next))) meta.generation = Number(metaOf(old).generation ?? 0) + 1;
    const terminating = metaOf(old).deletionTimestamp !== undefined;
    const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
    const had = Array.isArray(metaOf(old).finalizers) ? (metaOf(old).finalizers as unknown[]) : [];
    if (terminating && finalizers.some((f) => !had.includes(f))) {
      const added = finalizers.filter((f) => !had.includes(f)).map((f) => JSON.stringify(f));
      return E.left(
        serverError(state, method, t, 422, 'Invalid', `${what(t)} is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.join(', ')}}`),
      );
    }
    if (finalizers.length === 0) Reflect.deleteProperty(meta, 'finalizers');
    next = { apiVersion: apiVersionOf(t.r), kind: t.r.kind, ...next, metadata: meta };
    const live = before?.object;
    const strip = (o: unknown): unknown => JSON.parse(JSON.stringify({ ...(o as JsonMap), metadata: { ...metaOf(o), resourceVersion: undefined, managedFields: undefined } }));
    // A write that changes nothing is not stored: no new resourceVersion, no watch event.
    if (live !== undefined && deepEqual(strip(live), strip(next)) && sameSets(before?.sets ?? [], sets)) return E.right(live);
    const withFields = { ...next, metadata: { ...meta, managedFields: managedFieldsOf(sets, apiVersionOf(t.r), state.timestamp()) } } as unknown as KubeObject;
    if (dryRun) return E.right(withFields);
    // A terminating object whose last finalizer is removed is gone: the write answers its last state.
    const gone = terminating && finalizers.length === 0;
    return E.right(state.commit(t.r, t.namespace, t.name, withFields, sets, gone));
  };

  const checkRv = (method: string, t: Target, before: StoredObject, body: unknown): KubeError | undefined => {
    const rv = metaOf(body).resourceVersion;
    return typeof rv === 'string' && rv !== '' && rv !== before.object.metadata.resourceVersion ? stale(state, method, t) : undefined;
  };
  // A subresource the resource does not have is a path the server does not serve: a bare 404, naming no object.
  const statusMissing = (method: string, t: Target): KubeError | undefined =>
    t.subresource !== '' && !hasStatus(t.r)
      ? fromStatus(state.cluster, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' }, { request: `${method} ${resourcePath(t.r, { namespace: t.namespace, name: t.name, subresource: t.subresource })}` })
      : undefined;
  // Without a field manager the server names the writer after its user agent: the client's is `rxfleet`.
  const manager = (opts: WriteOptions | undefined): string => opts?.fieldManager ?? 'rxfleet';

  return {
    create(t: Target, obj: KubeObject, opts: WriteOptions | undefined): Answer<KubeObject> {
      if (state.get(t.r, t.namespace, t.name) !== undefined) return E.left(serverError(state, 'POST', t, 409, 'AlreadyExists', `${what(t)} already exists`));
      const body = cloneJson(obj) as unknown as JsonMap;
      const sets = updateOwnership([], manager(opts), '', undefined, body);
      return store('POST', { ...t, subresource: '' }, undefined, body, sets, opts?.dryRun === true);
    },
    update(t: Target, obj: KubeObject, opts: WriteOptions | undefined): Answer<KubeObject> {
      const before = state.get(t.r, t.namespace, t.name);
      const missing = statusMissing('PUT', t) ?? (before === undefined ? notFound(state, 'PUT', t) : checkRv('PUT', t, before, obj));
      if (missing !== undefined || before === undefined) return E.left(missing ?? notFound(state, 'PUT', t));
      const body = cloneJson(obj) as unknown as JsonMap;
      const sets = updateOwnership(before.sets, manager(opts), t.subresource, before.object as unknown as JsonMap, body);
      return store('PUT', t, before, body, sets, opts?.dryRun === true);
    },
    patch(t: Target, patch: unknown, opts: PatchOptions): Answer<KubeObject> {
      const before = state.get(t.r, t.namespace, t.name);
      const missing = statusMissing('PATCH', t) ?? (before === undefined ? notFound(state, 'PATCH', t) : undefined);
      if (missing !== undefined || before === undefined) return E.left(missing ?? notFound(state, 'PATCH', t));
      const live = cloneJson(before.object) as unknown as JsonMap;
      let body: JsonMap;
      if (opts.type === 'json') {
        const r = jsonPatch(live, patch);
        if (r.type === 'failed') return E.left(serverError(state, 'PATCH', t, 422, 'Invalid', `the JSON patch failed: ${r.reason}`));
        body = r.doc;
      } else {
        const merged = mergePatch(live, patch);
        body = isMap(merged) ? merged : {};
        const conflict = checkRv('PATCH', t, before, patch);
        if (conflict !== undefined) return E.left(conflict);
      }
      // A JSON patch may test or set the resourceVersion; what it leaves there is a precondition too.
      const conflict = checkRv('PATCH', t, before, body);
      if (conflict !== undefined) return E.left(conflict);
      const sets = updateOwnership(before.sets, manager(opts), t.subresource, live, body);
      return store('PATCH', t, before, body, sets, opts.dryRun === true);
    },
    apply(t: Target, config: unknown, opts: ApplyOptions): Answer<KubeObject> {
      const before = state.get(t.r, t.namespace, t.name);
      const missing = statusMissing('PATCH', t) ?? (before === undefined && t.subresource !== '' ? notFound(state, 'PATCH', t) : undefined);
      if (missing !== undefined) return E.left(missing);
      if (before !== undefined) {
        const conflict = checkRv('PATCH', t, before, config);
        if (conflict !== undefined) return E.left(conflict);
      }
      const raw = cloneJson(isMap(config) ? config : {});
      const { apiVersion: _a, kind: _k, ...fields } = raw;
      const meta = { ...metaOf(fields) };
      Reflect.deleteProperty(meta, 'resourceVersion');
      // Only the subresource's part of an apply counts: status through /status, the rest otherwise.
      const scoped: JsonMap =
        t.subresource === 'status'
          ? { ...(fields.status === undefined ? {} : { status: fields.status }) }
          : Object.fromEntries(Object.entries({ ...fields, metadata: meta }).filter(([k]) => !(k === 'status' && hasStatus(t.r))));
      const live = before === undefined ? undefined : (cloneJson(before.object) as unknown as JsonMap);
      const merged = applyMerge({ live, sets: before?.sets ?? [], manager: opts.fieldManager, subresource: t.subresource, config: scoped, force: opts.force === true });
      if (merged.type === 'conflict') {
        const n = merged.conflicts.length;
        const lines = merged.conflicts.map((c) => `conflict with "${c.manager}" using ${apiVersionOf(t.r)}: ${c.field}`);
        const causes = merged.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.manager}" using ${apiVersionOf(t.r)}`, field: c.field }));
        return E.left(serverError(state, 'PATCH', t, 409, 'Conflict', `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${lines.join('\n')}`, { causes }));
      }
      return store('PATCH', t, before, merged.object, merged.sets, opts.dryRun === true);
    },
    delete(t: Target, opts: DeleteOptions | undefined): Answer<KubeObject | Status> {
      const before = state.get(t.r, t.namespace, t.name);
      if (before === undefined) return E.left(notFound(state, 'DELETE', t));
      const pre = opts?.preconditions;
      if (pre?.uid !== undefined && pre.uid !== before.object.metadata.uid) {
        return E.left(serverError(state, 'DELETE', t, 409, 'Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${before.object.metadata.uid ?? ''}`));
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== before.object.metadata.resourceVersion) {
        return E.left(
          serverError(state, 'DELETE', t, 409, 'Conflict', `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${before.object.metadata.resourceVersion ?? ''}`),
        );
      }
      const finalizers = before.object.metadata.finalizers ?? [];
      if (finalizers.length > 0) {
        // Deletion waits on the finalizers: the object is marked, once, and answered as it now is.
        if (before.object.metadata.deletionTimestamp !== undefined || opts?.dryRun === true) return E.right(before.object);
        const marked = { ...before.object, metadata: { ...before.object.metadata, deletionTimestamp: state.timestamp(), deletionGracePeriodSeconds: 0 } };
        return E.right(state.commit(t.r, t.namespace, t.name, marked, before.sets));
      }
      if (opts?.dryRun !== true) state.commit(t.r, t.namespace, t.name, undefined, before.sets);
      const details = { name: t.name, kind: t.r.plural, uid: before.object.metadata.uid, ...(t.r.group === '' ? {} : { group: t.r.group }) };
      return E.right({ kind: 'Status', apiVersion: 'v1', status: 'Success', details } as Status);
    },
  };
}

function sameSets(a: readonly ManagedSet[], b: readonly ManagedSet[]): boolean {
  const key = (s: ManagedSet): string => `${s.manager}\n${s.operation}\n${s.subresource}\n${[...s.fields].sort().join('\n')}`;
  return a.length === b.length && a.map(key).sort().join('\0') === b.map(key).sort().join('\0');
}

/**
 * The operations of {@link serverWrites}.
 *
 * @example
 * ```ts
 * const w: ServerWrites = serverWrites(state, () => true);
 * ```
 */
export type ServerWrites = ReturnType<typeof serverWrites>;
