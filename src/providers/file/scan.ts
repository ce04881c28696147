// One scan of the kubeconfig files. Every context becomes a candidate named after the context, the
// name a person would type; a context name defined by several files is told apart by the file
// (`east.yaml+east`) and reported. A file that cannot be read or parsed is reported as skipped with
// its path and the cause, and the other files go on. Labels come from the context's
// `rxfleet.dev/labels` extension and from the provider's options.
import { readFileSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { load } from 'js-yaml';
import { kubeconfigDocument } from '../../client/kubeconfig-parse.js';
import type { KubeconfigDocument } from '../../client/kubeconfig-types.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import type { Labels } from '../internal/kubeconfig.js';
import { contextFingerprint, kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { ReportInput } from '../internal/report.js';
import { contextLabels } from './labels.js';

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
  /** Reads a file (default `readFileSync(path, 'utf8')`); tests inject failures root cannot cause. */
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

interface FileContext {
  readonly file: string;
  readonly context: string;
  /** The file's text, which the cluster's client is built from (with relative paths resolved against the file's directory). */
  readonly text: string;
  readonly doc: KubeconfigDocument;
  readonly labels: Labels | undefined;
}

function why(err: unknown): string {
  // js-yaml errors carry a snippet of the input in `message`: keep the reason and position only (it may hold a token).
  if (typeof err === 'object' && err !== null && 'reason' in err && typeof err.reason === 'string') {
    const mark = (err as { mark?: { line?: number; column?: number } }).mark;
    return mark?.line === undefined ? err.reason : `${err.reason} at line ${mark.line + 1}, column ${(mark.column ?? 0) + 1}`;
  }
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code === 'EACCES' ? 'permission denied (EACCES)' : err.code;
  if (err instanceof Error) return err.message.split('\n')[0] ?? 'unknown error';
  return 'unknown error';
}

/** Loads one file: its contexts with their extension labels and any problems with those, or why the file is skipped. */
function loadFile(path: string, read: (path: string) => string): Either<string, { readonly contexts: readonly FileContext[]; readonly problems: readonly ReportInput[] }> {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    return E.left(`cannot read kubeconfig ${path}: ${why(err)}`);
  }
  if (text.trim() === '') return E.left(`kubeconfig ${path} is empty`);
  let raw: unknown;
  let doc: KubeconfigDocument;
  try {
    // Parsed once: the document for the contexts, the raw YAML for their `rxfleet.dev/labels`
    // extensions. Certificate and token paths are relative to the file's directory, as kubectl reads them.
    raw = load(text);
    doc = kubeconfigDocument(raw, dirname(path));
  } catch (err) {
    return E.left(`invalid kubeconfig ${path}: ${why(err)}`);
  }
  if (doc.contexts.length === 0) return E.left(`kubeconfig ${path} has no contexts`);
  const problems: ReportInput[] = [];
  const contexts = doc.contexts.map((ctx): FileContext => {
    const labels = contextLabels(raw, ctx.name);
    if (E.isLeft(labels)) problems.push({ type: 'error', reason: `context "${ctx.name}" of kubeconfig ${path}: ${labels.left}; its labels are ignored` });
    return { file: path, context: ctx.name, text, doc, labels: E.isRight(labels) ? labels.right : undefined };
  });
  return E.right({ contexts, problems });
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
 * Scans kubeconfig files into candidates named after their contexts (see the file provider for the
 * naming rules), and lists the problems seen.
 *
 * @example
 * ```ts
 * scanKubeconfigFiles(['/etc/fleet/east.yaml', '/etc/fleet/west.yaml'], { separator: '+' }).desired.keys(); // 'east', 'west'
 * ```
 * @param files - kubeconfig files (absolute, as `expandPaths` gives them).
 * @param options - separator and labels.
 * @returns the desired set and the problems.
 */
export function scanKubeconfigFiles(files: readonly string[], options: ScanOptions): FileScan {
  const problems: ReportInput[] = [];
  const byContext = new Map<string, FileContext[]>();
  const loadedFiles: string[] = [];
  for (const f of files) {
    const loaded = loadFile(f, options.read ?? ((p) => readFileSync(p, 'utf8')));
    if (E.isLeft(loaded)) {
      problems.push({ type: 'skipped', candidate: f, reason: loaded.left });
      continue;
    }
    loadedFiles.push(f);
    problems.push(...loaded.right.problems);
    for (const c of loaded.right.contexts) byContext.set(c.context, [...(byContext.get(c.context) ?? []), c]);
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

function contextCandidate(d: FileContext, wanted: string, shortFile: string, options: ScanOptions): Either<ReportInput, Candidate> {
  let name: ClusterName;
  try {
    name = clusterName(wanted);
  } catch (err) {
    return E.left({ type: 'skipped', candidate: d.file, reason: `context ${JSON.stringify(d.context)} of kubeconfig ${d.file} cannot name a cluster: ${why(err)}` });
  }
  const labels = { ...d.labels, ...options.labels?.[name] };
  const identity = { provider: 'file', source: `context "${d.context}" of kubeconfig ${shortFile}` };
  return E.right(kubeconfigCandidate(name, { yaml: d.text, context: d.context, directory: dirname(d.file) }, contextFingerprint(d.doc, d.context), { identity, labels }));
}
