// One scan of the kubeconfig files: every context of every file becomes a candidate named
// `<path><separator><context>`; a file that does not load becomes a skipped candidate named after
// the file, so it is reported and the other files go on.
import { KubeConfig } from '@kubernetes/client-node';
import { clusterName } from '../../core/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import { contextFingerprint, kubeconfigCandidate } from '../internal/kubeconfig.js';

function why(err: unknown): string {
  // js-yaml errors carry a snippet of the input in `message`: keep the reason only (it may hold a token).
  if (typeof err === 'object' && err !== null && 'reason' in err && typeof err.reason === 'string') return err.reason;
  if (err instanceof Error) return err.message.split('\n')[0] ?? 'unknown error';
  return 'unknown error';
}

/**
 * The candidates of one kubeconfig file.
 *
 * @example
 * ```ts
 * fileCandidates('/etc/fleet/prod.kubeconfig', '+'); // '/etc/fleet/prod.kubeconfig+admin@prod', …
 * ```
 * @param path - the file.
 * @param separator - between the path and the context name.
 * @returns one candidate per context, or one skipped candidate named after the file.
 */
export function fileCandidates(path: string, separator: string): readonly Candidate[] {
  const kc = new KubeConfig();
  try {
    // loadFromFile resolves relative certificate paths against the file's directory.
    kc.loadFromFile(path);
  } catch (err) {
    return [skipped(clusterName(path), `invalid kubeconfig ${path}: ${why(err)}`)];
  }
  if (kc.getContexts().length === 0) return [skipped(clusterName(path), `kubeconfig ${path} has no contexts`)];
  return kc.getContexts().map((ctx) => {
    const name = clusterName(`${path}${separator}${ctx.name}`);
    return kubeconfigCandidate(name, { kubeConfig: kc, context: ctx.name }, contextFingerprint(kc, ctx.name));
  });
}

/**
 * The desired set of a list of files.
 *
 * @example
 * ```ts
 * desiredFromFiles(['/a.kubeconfig', '/b.kubeconfig'], '+');
 * ```
 * @param files - kubeconfig files.
 * @param separator - between path and context.
 * @returns every candidate by name.
 */
export function desiredFromFiles(files: readonly string[], separator: string): Desired {
  const out = new Map<ClusterName, Candidate>();
  for (const f of files) for (const c of fileCandidates(f, separator)) out.set(c.name, c);
  return out;
}
