// One scan of the kubeconfig files, from what each file holds to candidates. Every context becomes a
// candidate named after the context, the name a person would type; a context name defined by several
// files is told apart by the file (`east.yaml+east`) and reported. A file that cannot be read or
// parsed is reported as skipped with its path and the cause, and the other files go on. Labels come
// from the context's `rxfleet.dev/labels` extension and from the provider's options.
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import type { Labels } from '../internal/kubeconfig.js';
import { entriesCandidate } from '../internal/kubeconfig.js';
import type { ReportInput } from '../internal/report.js';
import type { FileLook } from './file-cache.js';
import type { FileContext } from './load-file.js';
import { loadKubeconfigDocument } from './load-file.js';
import { parseFailureOf, parseFailureText, parseText } from './parse-document.js';

/**
 * How a scan names and labels clusters.
 *
 * @example
 * ```ts
 * const o: ScanOptions = { separator: '+', labels: { east: { region: 'eu' } } };
 * ```
 */
export interface ScanOptions {
  /** Between a file's short name and a context's name, when a context name is defined by several files. */
  readonly separator: string;
  /** Labels by cluster name, over those of the kubeconfig's extension. */
  readonly labels?: Readonly<Record<string, Labels>>;
  /** Reads a file for {@link scanKubeconfigFiles} (default `readFileSync(path, 'utf8')`); tests inject failures root cannot cause. */
  readonly read?: (path: string) => string;
}

/**
 * One scan: the desired set, and every problem seen (skipped files, ambiguous context names, unused
 * or invalid labels), to report once each while they persist.
 *
 * @example
 * ```ts
 * const { desired, problems } = scanKubeconfigFiles(['/etc/fleet/east.yaml'], { separator: '+' });
 * ```
 */
export interface FileScan {
  /** One candidate per cluster, by name. */
  readonly desired: Desired;
  /** Reports to make (without provider and time): `skipped` files, `error`s of naming and labels. */
  readonly problems: readonly ReportInput[];
}

/**
 * Short names for files: for each, the fewest trailing path segments that no other file shares
 * (the base name, unless two files have the same one). Never an absolute path unless the files
 * differ only there.
 *
 * @example
 * ```ts
 * shortFileNames(['/a/east.yaml', '/b/config', '/c/config']); // east.yaml, b/config, c/config
 * ```
 * @param files - absolute paths, no duplicates.
 * @returns each file's short name.
 */
export function shortFileNames(files: readonly string[]): ReadonlyMap<string, string> {
  const parts = files.map((f) => f.split(sep));
  const tail = (p: readonly string[], k: number): string => p.slice(Math.max(p.length - k, 0)).join(sep);
  const out = new Map<string, string>();
  files.forEach((f, i) => {
    const mine = parts[i] ?? [];
    for (let k = 1; k <= mine.length; k++) {
      const name = tail(mine, k);
      if (parts.every((p, j) => j === i || tail(p, k) !== name)) {
        out.set(f, name);
        return;
      }
    }
    out.set(f, f);
  });
  return out;
}

/**
 * Names the contexts of looked-at files (see the file provider for the naming rules), and lists the
 * problems seen: skipped files, ambiguous context names, labels for no cluster.
 *
 * @example
 * ```ts
 * nameCandidates([['/etc/fleet/a.kubeconfig', look]], { separator: '+' }).desired.keys(); // 'east', 'west'
 * ```
 * @param files - each file (absolute, in `expandPaths` order) with what it holds.
 * @param options - separator and labels.
 * @returns the desired set and the problems.
 */
export function nameCandidates(files: readonly (readonly [string, FileLook])[], options: ScanOptions): FileScan {
  const problems: ReportInput[] = [];
  const byContext = new Map<string, FileContext[]>();
  const loadedFiles: string[] = [];
  for (const [f, loaded] of files) {
    if (E.isLeft(loaded)) {
      problems.push({ type: 'skipped', candidate: f, reason: loaded.left });
      continue;
    }
    loadedFiles.push(f);
    problems.push(...loaded.right.problems);
    for (const c of loaded.right.contexts) {
      const defs = byContext.get(c.context);
      if (defs === undefined) byContext.set(c.context, [c]);
      else defs.push(c);
    }
  }
  const short = shortFileNames(loadedFiles);
  const out = new Map<ClusterName, Candidate>();
  for (const [context, defs] of byContext) {
    const names = defs.length === 1 ? [context] : defs.map((d) => `${short.get(d.file) ?? d.file}${options.separator}${context}`);
    if (defs.length > 1) {
      problems.push({
        type: 'error',
        reason: `context "${context}" is defined in ${defs.length} kubeconfig files (${defs.map((d) => d.file).join(', ')}): their clusters are named ${names.map((n) => `"${n}"`).join(', ')}; rename a context to give its cluster a name of its own`,
      });
    }
    defs.forEach((d, i) => {
      const candidate = contextCandidate(d, names[i] ?? context, short.get(d.file) ?? d.file, options);
      if (E.isLeft(candidate)) problems.push(candidate.left);
      else if (out.has(candidate.right.name)) problems.push({ type: 'skipped', candidate: d.file, reason: `context "${context}" of kubeconfig ${d.file} would be named "${candidate.right.name}", which another context already is` });
      else out.set(candidate.right.name, candidate.right);
    });
  }
  for (const name of Object.keys(options.labels ?? {})) {
    if (!out.has(name as ClusterName)) problems.push({ type: 'error', reason: `labels are configured for cluster "${name}", which no kubeconfig context is named` });
  }
  return { desired: out, problems };
}

/** A whole file read, parsed and loaded at once (synchronously): what {@link scanKubeconfigFiles} does per file. */
function loadNow(path: string, read: (path: string) => string): FileLook {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    return E.left(`cannot read kubeconfig ${path}: ${code === 'EACCES' ? 'permission denied (EACCES)' : (code ?? 'unknown error')}`);
  }
  if (text.trim() === '') return E.left(`kubeconfig ${path} is empty`);
  let raw: unknown;
  try {
    raw = parseText(text);
  } catch (err) {
    return E.left(`invalid kubeconfig ${path}: ${parseFailureText(parseFailureOf(err))}`);
  }
  return loadKubeconfigDocument(raw, path);
}

/**
 * Scans kubeconfig files synchronously into candidates named after their contexts (see
 * {@link nameCandidates}). The provider reads asynchronously and only what changed (file-cache.ts);
 * this whole, blocking scan is for tools and tests.
 *
 * @example
 * ```ts
 * scanKubeconfigFiles(['/etc/fleet/east.yaml', '/etc/fleet/west.yaml'], { separator: '+' }).desired.keys(); // 'east', 'west'
 * ```
 * @param files - kubeconfig files (absolute, as `expandPaths` gives them).
 * @param options - separator, labels and the read function.
 * @returns the desired set and the problems.
 */
export function scanKubeconfigFiles(files: readonly string[], options: ScanOptions): FileScan {
  const read = options.read ?? ((p: string) => readFileSync(p, 'utf8'));
  return nameCandidates(files.map((f) => [f, loadNow(f, read)] as const), options);
}

/**
 * Candidates made for a context, by the context's object: a file's unchanged contexts keep their
 * objects (load-file.ts), so a scan after one context of thousands changed makes one candidate.
 */
const made = new WeakMap<FileContext, { readonly wanted: string; readonly shortFile: string; readonly options: ScanOptions; readonly candidate: Either<ReportInput, Candidate> }>();

function contextCandidate(d: FileContext, wanted: string, shortFile: string, options: ScanOptions): Either<ReportInput, Candidate> {
  const known = made.get(d);
  if (known?.wanted === wanted && known.shortFile === shortFile && known.options === options) return known.candidate;
  const candidate = newCandidate(d, wanted, shortFile, options);
  made.set(d, { wanted, shortFile, options, candidate });
  return candidate;
}

function newCandidate(d: FileContext, wanted: string, shortFile: string, options: ScanOptions): Either<ReportInput, Candidate> {
  let name: ClusterName;
  try {
    name = clusterName(wanted);
  } catch (err) {
    return E.left({ type: 'skipped', candidate: d.file, reason: `context ${JSON.stringify(d.context)} of kubeconfig ${d.file} cannot name a cluster: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : 'unknown error'}` });
  }
  const labels = { ...d.labels, ...options.labels?.[name] };
  const identity = { provider: 'file', from: `context "${d.context}" of kubeconfig ${shortFile}` };
  return E.right(entriesCandidate(name, d.entries, d.fingerprint, { identity, labels }));
}
