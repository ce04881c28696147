// The clients of one in-memory cluster: a ClusterClient (Promises, for run() and code that awaits)
// and a WriteClient for the sinks (Observables on the scheduler, so writes, retries and injected
// timeouts run in virtual time). Both record every request and honour injected failures.
import type { Observable, SchedulerLike } from 'rxjs';
import { defer, map, of, throwError, timer } from 'rxjs';
import type { ClusterClient, PatchType } from '../client/client.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { WriteClient } from '../sinks/context.js';
import type { Verb } from '../core/verb.js';
import { failureRules, injectedError } from './fake-failures.js';
import type { ClusterState } from './fake-store.js';
import { listPage, watchLines } from './fake-watch.js';
import type { Answer, ServerWrites, Target } from './fake-writes.js';

/**
 * One request a client of the in-memory fleet received, with its answer.
 *
 * @example
 * ```ts
 * const applies = fleet.requests.filter((r: FakeRequest) => r.verb === 'apply' && r.error === undefined);
 * ```
 */
export interface FakeRequest {
  /** When it was made, in scheduler time (ms). */
  readonly at: number;
  /** The cluster it went to. */
  readonly cluster: string;
  /** The call. */
  readonly verb: Verb;
  /** {@link resourceId} of the resource (`configmaps`, `widgets.example.com`). */
  readonly resource: string;
  /** The namespace (`''` when none). */
  readonly namespace: string;
  /** The object's name (`''` for lists and watches). */
  readonly name: string;
  /** The subresource requested (`status`); absent for the object itself. */
  readonly subresource?: string;
  /** The field manager sent, when one was. */
  readonly fieldManager?: string;
  /** Whether an apply was forced. */
  readonly force?: boolean;
  /** The patch format of a patch. */
  readonly patchType?: PatchType;
  /** Whether it was a dry run. */
  readonly dryRun: boolean;
  /** The object, apply configuration or patch sent (frozen). */
  readonly body?: unknown;
  /** The error it was answered with; absent when it succeeded. */
  readonly error?: KubeError;
}

const writeVerbs: ReadonlySet<Verb> = new Set(['create', 'update', 'apply', 'patch', 'delete']);

/**
 * Whether a request wrote (create, update, apply, patch, delete).
 *
 * @example
 * ```ts
 * fleet.requests.filter(isWrite);
 * ```
 * @param r - the request.
 * @returns true for writes.
 */
export function isWrite(r: FakeRequest): boolean {
  return writeVerbs.has(r.verb);
}

/**
 * A request as a short marble value: `<verb>[/<subresource>] <cluster>/<namespace>/<name>`, then
 * ` → <code>` (or ` → <type>` without a code) when it failed.
 *
 * @example
 * ```ts
 * requestLabel(r); // 'apply east/default/web', 'patch/status east/default/web', 'apply east/default/web → 409'
 * ```
 * @param r - the request.
 * @returns the label.
 */
export function requestLabel(r: FakeRequest): string {
  const sub = r.subresource === undefined ? '' : `/${r.subresource}`;
  const where = [r.cluster, ...(r.namespace === '' ? [] : [r.namespace]), ...(r.name === '' ? [] : [r.name])].join('/');
  const failed = r.error === undefined ? '' : ` → ${r.error.code ?? r.error.type}`;
  return `${r.verb}${sub} ${where}${failed}`;
}

/**
 * Both clients of one in-memory cluster.
 *
 * @example
 * ```ts
 * const { client, writeClient } = fakeClients({ state, writes, rules, scheduler, record: (r: FakeRequest) => log.push(r) });
 * ```
 * @param deps - the cluster's state and writes, the fleet's failure rules, its scheduler and its request log.
 * @returns the clients.
 */
export function fakeClients(deps: {
  readonly state: ClusterState;
  readonly writes: ServerWrites;
  readonly rules: ReturnType<typeof failureRules>;
  readonly scheduler: SchedulerLike;
  readonly record: (r: FakeRequest) => void;
}): { readonly client: ClusterClient; readonly writeClient: WriteClient } {
  const { state, writes, rules, scheduler, record } = deps;
  let closed = false;
  let generated = 0;
  const target = (r: ResourceDescriptor, name: string, ns: string | undefined, sub: string | undefined): Target => ({
    r,
    namespace: r.namespaced ? (ns ?? '') : '',
    name,
    subresource: sub ?? '',
  });
  const methods: Readonly<Record<Verb, string>> = { get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', apply: 'PATCH', patch: 'PATCH', delete: 'DELETE' };

  // One request: failure rules first, then the server's answer; recorded either way. `hangMs` is how
  // long an injected timeout keeps the caller waiting.
  function call<T>(verb: Verb, t: Target, extra: Partial<FakeRequest>, serve: () => Answer<T>): { readonly answer: Answer<T>; readonly hangMs: number } {
    const failure = closed ? undefined : rules.take(state.cluster, verb, t.r, t.name);
    const answer: Answer<T> = closed
      ? E.left(kubeError('NotEngaged', state.cluster, 'the in-memory cluster client was closed'))
      : failure !== undefined
        ? E.left(injectedError(state, methods[verb], t, failure))
        : serve();
    const req: FakeRequest = { at: scheduler.now(), cluster: state.cluster, verb, resource: resourceId(t.r), namespace: t.namespace, name: t.name, ...(t.subresource === '' ? {} : { subresource: t.subresource }), dryRun: false, ...extra };
    record(Object.freeze(E.isLeft(answer) ? { ...req, error: answer.left } : req));
    return { answer, hangMs: failure?.type === 'timeout' ? (failure.timeoutMs ?? 0) : 0 };
  }

  const nameFor = (obj: KubeObject): string => obj.metadata.name ?? `${obj.metadata.generateName ?? ''}${(++generated).toString(36).padStart(5, 'x')}`;
  const named = <T extends KubeObject>(obj: T, name: string): T => ({ ...obj, metadata: { ...obj.metadata, name } });
  const body = (v: unknown): { readonly body: unknown } => ({ body: Object.freeze(JSON.parse(JSON.stringify(v)) as unknown) });

  // Each typed call, once: the answer and how long it hangs. The casts narrow the stored JSON to the caller's T.
  const ops = {
    get: <T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: { namespace?: string; subresource?: string }) => {
      const t = target(r, name, opts?.namespace, opts?.subresource);
      return call<T>('get', t, {}, () => {
        const s = state.get(r, t.namespace, name);
        return s === undefined ? E.left(injectedError(state, 'GET', t, { type: 'status', code: 404, message: `${r.plural} "${name}" not found` })) : E.right(s.object as T);
      });
    },
    listAll: <T extends KubeObject>(r: ResourceDescriptor<T>, opts?: { namespace?: string; labelSelector?: string; fieldSelector?: string }) =>
      call('list', target(r, '', opts?.namespace, ''), {}, () => listPage(state, r, { ...opts, limit: 0 })),
    create: <T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: { namespace?: string; fieldManager?: string; dryRun?: boolean }) => {
      const name = nameFor(obj);
      const t = target(r, name, obj.metadata.namespace ?? opts?.namespace, '');
      return call<T>('create', t, { ...body(obj), ...manager(opts) }, () => writes.create(t, named(obj, name), opts) as Answer<T>);
    },
    update: <T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: { namespace?: string; fieldManager?: string; dryRun?: boolean; subresource?: string }) => {
      const t = target(r, obj.metadata.name ?? '', obj.metadata.namespace ?? opts?.namespace, opts?.subresource);
      return call<T>('update', t, { ...body(obj), ...manager(opts) }, () => writes.update(t, obj, opts) as Answer<T>);
    },
    apply: <T extends KubeObject>(r: ResourceDescriptor<T>, obj: { metadata: { name?: string; namespace?: string } }, opts: { fieldManager: string; force?: boolean; namespace?: string; subresource?: string; dryRun?: boolean }) => {
      const t = target(r, obj.metadata.name ?? '', obj.metadata.namespace ?? opts.namespace, opts.subresource);
      const extra = { ...body(obj), fieldManager: opts.fieldManager, force: opts.force === true, dryRun: opts.dryRun === true };
      return call<T>('apply', t, extra, () => writes.apply(t, obj, opts) as Answer<T>);
    },
    patch: <T extends KubeObject>(r: ResourceDescriptor<T>, name: string, patch: unknown, opts: { type: PatchType; namespace?: string; subresource?: string; fieldManager?: string; dryRun?: boolean }) => {
      const t = target(r, name, opts.namespace, opts.subresource);
      return call<T>('patch', t, { ...body(patch), ...manager(opts), patchType: opts.type }, () => writes.patch(t, patch, opts) as Answer<T>);
    },
    delete: <T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: { namespace?: string; dryRun?: boolean }) => {
      const t = target(r, name, opts?.namespace, '');
      return call('delete', t, { dryRun: opts?.dryRun === true }, () => writes.delete(t, opts) as Answer<T>);
    },
  };
  function manager(opts: { fieldManager?: string; dryRun?: boolean } | undefined): Partial<FakeRequest> {
    return { ...(opts?.fieldManager === undefined ? {} : { fieldManager: opts.fieldManager }), dryRun: opts?.dryRun === true };
  }

  const promised = <T>(c: { readonly answer: Answer<T> }): Promise<Answer<T>> => Promise.resolve(c.answer);
  const observed = <T>(c: () => { readonly answer: Answer<T>; readonly hangMs: number }): Observable<Answer<T>> =>
    defer(() => {
      const { answer, hangMs } = c();
      return hangMs > 0 ? timer(hangMs, scheduler).pipe(map(() => answer)) : of(answer);
    });

  const client: ClusterClient = {
    cluster: state.cluster,
    server: `https://${encodeURIComponent(state.cluster)}.in-memory.invalid`,
    get: (r, name, opts) => promised(ops.get(r, name, opts)),
    list: (r, opts) => promised(call('list', target(r, '', opts?.namespace, ''), {}, () => listPage(state, r, opts))),
    listAll: (r, opts) => promised(ops.listAll(r, opts)),
    watch: (r, opts = {}) =>
      defer(() => {
        const { answer } = call('watch', target(r, '', opts.namespace, ''), {}, () => E.right(undefined));
        return E.isLeft(answer) ? throwError(() => answer.left) : watchLines(state, r, opts, scheduler);
      }),
    create: (r, obj, opts) => promised(ops.create(r, obj, opts)),
    update: (r, obj, opts) => promised(ops.update(r, obj, opts)),
    apply: (r, obj, opts) => promised(ops.apply(r, obj, opts)),
    patch: (r, name, patch, opts) => promised(ops.patch(r, name, patch, opts)),
    delete: (r, name, opts) => promised(ops.delete(r, name, opts)),
    raw: (req) => Promise.resolve(E.left(kubeError('MethodNotAllowed', state.cluster, `the in-memory cluster does not serve raw requests (${req.method} ${req.path})`))),
    close: () => {
      closed = true;
    },
  };
  const writeClient: WriteClient = {
    get: (r, name, opts) => observed(() => ops.get(r, name, opts)),
    listAll: (r, opts) => observed(() => ops.listAll(r, opts)),
    create: (r, obj, opts) => observed(() => ops.create(r, obj, opts)),
    update: (r, obj, opts) => observed(() => ops.update(r, obj, opts)),
    apply: (r, obj, opts) => observed(() => ops.apply(r, obj, opts)),
    patch: (r, name, patch, opts) => observed(() => ops.patch(r, name, patch, opts)),
    delete: (r, name, opts) => observed(() => ops.delete(r, name, opts)),
  };
  return { client, writeClient };
}
