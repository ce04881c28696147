// One kubeconfig file's contexts, from its parsed document: everything a scan needs per context
// (the fingerprint, the labels, the parsed entries its clients are built from) is computed once
// when the file changes, and a context whose entries did not change keeps what was computed for it.
// A context keeps its parsed entries only: no text of its kubeconfig and no raw copy of them (its
// clients share those frozen entries); a later load compares its own parsed entries with them.
// A file of thousands of contexts is loaded in slices that yield to the event loop between them.
import { dirname } from 'node:path';
import type { Observable, SchedulerLike } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';
import { kubeconfigDocument } from '../../client/kubeconfig-parse.js';
import type { KubeconfigContextEntries } from '../../client/kubeconfig.js';
import type { KubeconfigCluster, KubeconfigContext, KubeconfigUser } from '../../client/kubeconfig-types.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import { sha256 } from '../internal/candidates.js';
import type { Labels } from '../internal/kubeconfig.js';
import type { ReportInput } from '../internal/report.js';
import { entryLabels } from './labels.js';

/**
 * One context of a kubeconfig file, ready to become a candidate.
 *
 * @example
 * ```ts
 * const c: FileContext = { file: '/etc/fleet/a.kubeconfig', context: 'east', entries: { context, cluster, user }, fingerprint: '9f86…', labels: { region: 'eu' } };
 * ```
 */
export interface FileContext {
  readonly file: string;
  readonly context: string;
  /**
   * The context and the cluster and user it names, parsed (relative paths made absolute from the
   * file's directory) and deeply frozen: what its clients are built from. A later load whose
   * entries and labels are equal keeps this object.
   */
  readonly entries: KubeconfigContextEntries;
  /** The digest of `contextFingerprint`: changes exactly when the context's server or credentials change. */
  readonly fingerprint: string;
  readonly labels: Labels | undefined;
  /** Why its labels are ignored, when they are. */
  readonly problem?: ReportInput;
}

/**
 * A file that loaded: its contexts and the problems of their labels.
 *
 * @example
 * ```ts
 * const f: LoadedFile = { contexts: [], problems: [] };
 * ```
 */
export interface LoadedFile {
  readonly contexts: readonly FileContext[];
  readonly problems: readonly ReportInput[];
}

type Json = Readonly<Record<string, unknown>>;
const record = (x: unknown): Json | undefined => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : undefined);
const list = (doc: Json, key: string): readonly unknown[] => {
  const v = doc[key];
  return Array.isArray(v) ? v : [];
};

/** Entries by name, the first of a name winning, as kubectl reads them. */
function byName<T>(entries: Iterable<T>, nameOf: (e: T) => string | undefined): Map<string, T> {
  const out = new Map<string, T>();
  for (const e of entries) {
    const name = nameOf(e);
    if (name !== undefined && !out.has(name)) out.set(name, e);
  }
  return out;
}
const rawName = (e: unknown): string | undefined => {
  const n = record(e)?.name;
  return typeof n === 'string' || typeof n === 'number' ? String(n) : undefined;
};

/** Entries checked per slice: a few hundred microseconds of work each. */
const sliceEntries = 64;
/** How long a slice may run before yielding to the event loop. */
const sliceBudgetMs = 8;

/** Checks entries `key` of the document in slices (kubeconfigDocument, its errors' indexes made the file's). */
function* parsedEntries<K extends 'clusters' | 'users' | 'contexts'>(doc: Json, key: K, directory: string): Generator<undefined, ReturnType<typeof kubeconfigDocument>[K]> {
  const all = list(doc, key);
  const out = [];
  for (let i = 0; i < all.length; i += sliceEntries) {
    try {
      out.push(...kubeconfigDocument({ [key]: all.slice(i, i + sliceEntries) }, directory)[key]);
    } catch (err) {
      const message = err instanceof Error ? (err.message.split('\n')[0] ?? 'unknown error') : 'unknown error';
      throw new Error(message.replace(new RegExp(`^${key}\\[(\\d+)\\]`), (_, j: string) => `${key}[${Number(j) + i}]`), { cause: err });
    }
    yield;
  }
  return out as ReturnType<typeof kubeconfigDocument>[K];
}

/** Equality of parsed values; strings compare natively, so a 10 MB file compares in a few ms. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const rb = b as Json;
  return ka.length === Object.keys(rb).length && ka.every((k) => k in rb && same((a as Json)[k], rb[k]));
}

/** Freezes a parsed entry and what it holds (exec arguments and environment, auth-provider config): its clients share it. */
function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

/** The steps of a load, yielding between slices; `previous` (the file's last load) lends the contexts whose entries did not change. */
function* loading(raw: unknown, path: string, previous: LoadedFile | undefined): Generator<undefined, Either<string, LoadedFile>> {
  if (raw === undefined || raw === null) return E.left(`kubeconfig ${path} is empty`);
  const doc = record(raw);
  if (doc === undefined) return E.left(`invalid kubeconfig ${path}: not a kubeconfig: the document is not a mapping`);
  const directory = dirname(path);
  let clusters: readonly KubeconfigCluster[];
  let users: readonly KubeconfigUser[];
  let contexts: readonly KubeconfigContext[];
  try {
    kubeconfigDocument({ 'current-context': doc['current-context'] });
    // Certificate and token paths are relative to the file's directory, as kubectl reads them.
    clusters = yield* parsedEntries(doc, 'clusters', directory);
    users = yield* parsedEntries(doc, 'users', directory);
    contexts = yield* parsedEntries(doc, 'contexts', directory);
  } catch (err) {
    return E.left(`invalid kubeconfig ${path}: ${err instanceof Error ? err.message : 'unknown error'}`);
  }
  if (contexts.length === 0) return E.left(`kubeconfig ${path} has no contexts`);
  const rawContexts = byName(list(doc, 'contexts'), rawName);
  const parsed = { contexts: byName(contexts, (c) => c.name), clusters: byName(clusters, (c) => c.name), users: byName(users, (u) => u.name) };
  const before = byName<FileContext>(previous?.contexts ?? [], (c) => c.context);
  // Each context keeps entries of its own: a cluster or user entry named by several contexts is
  // copied for the second and later ones, so that no two clusters share credentials.
  const taken = new Set<object>();
  function own<T extends object>(entry: T): T;
  function own<T extends object>(entry: T | undefined): T | undefined;
  function own<T extends object>(entry: T | undefined): T | undefined {
    if (entry === undefined || !taken.has(entry)) {
      if (entry !== undefined) taken.add(entry);
      return entry;
    }
    return structuredClone(entry);
  }
  const out: FileContext[] = [];
  for (const [i, ctx] of contexts.entries()) {
    // The entries the loader uses: the first of each name, as kubectl reads them.
    const used = parsed.contexts.get(ctx.name) ?? ctx;
    const entries = { context: used, cluster: parsed.clusters.get(used.cluster), user: used.user === undefined ? undefined : parsed.users.get(used.user) };
    const read = entryLabels(rawContexts.get(ctx.name));
    const labels = E.isRight(read) ? read.right : undefined;
    const problem: ReportInput | undefined = E.isLeft(read) ? { type: 'error', reason: `context "${ctx.name}" of kubeconfig ${path}: ${read.left}; its labels are ignored` } : undefined;
    const known = before.get(ctx.name);
    // The same entries and labels as last time: the same object, already computed.
    if (known !== undefined && same(known.entries, entries) && same(known.labels, labels) && same(known.problem, problem)) out.push(known);
    else {
      out.push({
        file: path,
        context: ctx.name,
        entries: frozen({ context: own(entries.context), cluster: own(entries.cluster), user: own(entries.user) }),
        // The digest of contextFingerprint (internal/kubeconfig.ts), with its lookups by map.
        fingerprint: sha256(JSON.stringify({ cluster: entries.cluster ?? null, user: entries.user ?? null, namespace: used.namespace })),
        labels,
        ...(problem === undefined ? {} : { problem }),
      });
    }
    if (i % sliceEntries === sliceEntries - 1) yield;
  }
  return E.right({ contexts: out, problems: out.flatMap((c) => (c.problem === undefined ? [] : [c.problem])) });
}

/**
 * The contexts of a parsed kubeconfig file, or why the file is skipped (naming the path): empty, not
 * a kubeconfig (an entry without a name, a cluster without a server…), or without contexts. At once,
 * blocking: see {@link loadKubeconfigDocumentInSlices} for big files.
 *
 * @example
 * ```ts
 * const loaded = loadKubeconfigDocument(parseText(text), '/etc/fleet/a.kubeconfig');
 * ```
 * @param raw - the parsed file (`undefined` or `null` when it is empty).
 * @param path - the file's path, for messages and relative paths.
 * @param previous - the file's last load, whose unchanged contexts are kept as they are.
 * @returns the contexts and their label problems, or the reason.
 */
export function loadKubeconfigDocument(raw: unknown, path: string, previous?: LoadedFile): Either<string, LoadedFile> {
  const steps = loading(raw, path, previous);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * {@link loadKubeconfigDocument} in slices of at most ~8 ms, each a task of `scheduler`, so that a
 * file of thousands of contexts never holds the event loop for long. Unsubscribing stops it.
 *
 * @example
 * ```ts
 * loadKubeconfigDocumentInSlices(doc, '/etc/fleet/big.kubeconfig', asyncScheduler).subscribe((loaded: Either<string, LoadedFile>) => use(loaded));
 * ```
 * @param raw - the parsed file.
 * @param path - the file's path.
 * @param scheduler - where the slices run (a marble test's runs them in virtual time, at once).
 * @param previous - the file's last load.
 * @returns the load, once.
 */
export function loadKubeconfigDocumentInSlices(raw: unknown, path: string, scheduler: SchedulerLike, previous?: LoadedFile): Observable<Either<string, LoadedFile>> {
  return new RxObservable<Either<string, LoadedFile>>((subscriber) => {
    const steps = loading(raw, path, previous);
    const slice = (): boolean => {
      const until = performance.now() + sliceBudgetMs;
      for (;;) {
        const step = steps.next();
        if (step.done === true) {
          subscriber.next(step.value);
          subscriber.complete();
          return true;
        }
        if (performance.now() >= until) return false;
      }
    };
    if (slice()) return undefined;
    return scheduler.schedule(function (this: { schedule(state?: undefined, delay?: number): void }) {
      if (!slice()) this.schedule(undefined, 0);
    }, 0);
  });
}
