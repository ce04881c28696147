// What a kubeconfig read from a Secret may make the controller do besides talk to its server: run
// an exec plugin, read a local file. A Secret's author is not the operator, so by default it may do
// neither: each such field is refused, naming it, unless the provider's `trust` allows it. Checked
// on the parsed YAML before the kubeconfig is loaded, and for every user and cluster entry, so
// nothing a Secret names is ever read or run. The parser is the js-yaml the loader uses.
import { load } from 'js-yaml';
import type { ClusterName } from '../../core/cluster.js';
import type { Candidate } from './candidates.js';
import { sha256, skipped } from './candidates.js';
import type { ClusterFacts } from './kubeconfig.js';
import { kubeconfigCandidate } from './kubeconfig.js';
import type { KubeconfigTrust } from '../../client/kubeconfig-trust.js';

type Json = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
// Any value but an absent one counts: the loader writes a number out as a path.
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
// JSON.stringify answers undefined for undefined (and functions), whatever its declared type says.
const json: (v: unknown) => string | undefined = JSON.stringify;
function quoted(v: unknown): string {
  const text = typeof v === 'string' ? v : (json(v) ?? 'undefined');
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
// Environment variables that make an allowed command run something else.
const hijacking = /^(?:PATH|NODE_OPTIONS|LD_\w*|DYLD_\w*)$/;

function refused(field: string, why: string): string {
  return `kubeconfig field ${field} is not allowed from a Secret (${why})`;
}

function fileRefusal(entry: Json, keys: readonly string[], at: string, trust: KubeconfigTrust): string | undefined {
  for (const k of keys) {
    const v = entry[k];
    if (present(v) && !(typeof v === 'string' && (trust.files ?? []).includes(v))) {
      return refused(`${at}.${k}`, `it reads ${quoted(v)}; allow the file with trust.files`);
    }
  }
  return undefined;
}

function execRefusal(exec: unknown, at: string, trust: KubeconfigTrust): string | undefined {
  const command = isObject(exec) ? exec.command : undefined;
  if (typeof command !== 'string' || !(trust.execCommands ?? []).includes(command)) {
    const what = typeof command === 'string' ? `it runs ${quoted(command)}` : 'it names no command';
    return refused(at, `${what}; allow the command with trust.execCommands`);
  }
  const env = isObject(exec) && Array.isArray(exec.env) ? (exec.env as unknown[]) : [];
  const j = env.findIndex((e) => isObject(e) && typeof e.name === 'string' && hijacking.test(e.name));
  const name = isObject(env[j]) ? env[j].name : undefined;
  return j < 0 ? undefined : refused(`${at}.env[${j}]`, `it sets ${quoted(name)}, which changes what the allowed command runs`);
}

function userRefusal(user: Json, at: string, trust: KubeconfigTrust): string | undefined {
  const own = fileRefusal(user, ['token-file', 'tokenFile', 'client-certificate', 'client-key'], at, trust);
  if (own !== undefined) return own;
  if (present(user.exec)) {
    const exec = execRefusal(user.exec, `${at}.exec`, trust);
    if (exec !== undefined) return exec;
  }
  const provider = user['auth-provider'];
  const config = isObject(provider) ? provider.config : undefined;
  if (!isObject(config)) return undefined;
  const where = `${at}.auth-provider.config`;
  if (present(config['cmd-path'])) return refused(`${where}.cmd-path`, 'client-node runs it through a shell with the Secret\'s cmd-args; use an exec plugin allowed with trust.execCommands');
  return fileRefusal(config, ['tokenFile', 'idp-certificate-authority'], where, trust);
}

function clusterRefusal(cluster: Json, at: string, trust: KubeconfigTrust): string | undefined {
  // The loader honours only an exact `true` (kubeconfig-parse.ts); refuse exactly that.
  if (cluster['insecure-skip-tls-verify'] === true && trust.insecureSkipTLSVerify !== true) {
    return refused(`${at}.insecure-skip-tls-verify`, 'it turns off verification of the server certificate; allow it with trust.insecureSkipTLSVerify');
  }
  return fileRefusal(cluster, ['certificate-authority'], at, trust);
}

/**
 * Why a kubeconfig from a Secret may not be used as it is, or `undefined` when it may: the first
 * field (users before clusters) that runs a program or reads a file and that `trust` does not allow (see
 * {@link KubeconfigTrust}), or the reason the YAML does not parse. Every user and cluster entry is
 * checked, whichever context is current, so that no context of the Secret can reach one.
 *
 * @example
 * ```ts
 * refusedKubeconfigField(yaml, {}); // 'kubeconfig field users[0].user.exec is not allowed from a Secret (it runs "aws"; allow the command with trust.execCommands)'
 * refusedKubeconfigField(yaml, { execCommands: ['aws'] }); // undefined
 * ```
 * @param yaml - the kubeconfig's text.
 * @param trust - what the operator allows.
 * @returns the reason, naming the field, or `undefined`.
 */
export function refusedKubeconfigField(yaml: string, trust: KubeconfigTrust): string | undefined {
  let doc: unknown;
  try {
    doc = load(yaml);
  } catch (err) {
    // Fail closed, in the loader's words: the reason and position, never the text (it may hold a token).
    const e = err as { reason?: unknown; mark?: { line?: number; column?: number } };
    const pos = e.mark?.line === undefined ? '' : ` at line ${e.mark.line + 1}, column ${(e.mark.column ?? 0) + 1}`;
    return `invalid kubeconfig: ${typeof e.reason === 'string' ? e.reason : 'not YAML'}${pos}`;
  }
  if (!isObject(doc)) return undefined;
  const users: unknown[] = Array.isArray(doc.users) ? doc.users : [];
  for (const [i, u] of users.entries()) {
    const user = isObject(u) ? u.user : undefined;
    const why = isObject(user) ? userRefusal(user, `users[${i}].user`, trust) : undefined;
    if (why !== undefined) return why;
  }
  const clusters: unknown[] = Array.isArray(doc.clusters) ? doc.clusters : [];
  for (const [i, c] of clusters.entries()) {
    const cluster = isObject(c) ? c.cluster : undefined;
    const why = isObject(cluster) ? clusterRefusal(cluster, `clusters[${i}].cluster`, trust) : undefined;
    if (why !== undefined) return why;
  }
  return undefined;
}

/**
 * The candidate of a kubeconfig read from a Secret: {@link kubeconfigCandidate} when
 * {@link refusedKubeconfigField} finds nothing to refuse, else skipped with the reason after the
 * Secret's name (`Secret fleet/east: kubeconfig field users[0].user.exec is not allowed from a
 * Secret (…)`).
 *
 * @example
 * ```ts
 * secretKubeconfigCandidate(clusterName('east'), yaml, { identity: { provider: 'kubeconfig-secrets', from: 'Secret fleet/east' } }, {});
 * ```
 * @param name - the cluster's name.
 * @param yaml - the kubeconfig from the Secret.
 * @param facts - identity, labels and origin (the Secret, named in the reason).
 * @param trust - what the operator allows.
 * @returns the candidate.
 */
export function secretKubeconfigCandidate(name: ClusterName, yaml: string, facts: ClusterFacts, trust: KubeconfigTrust): Candidate {
  const why = refusedKubeconfigField(yaml, trust);
  return why === undefined ? kubeconfigCandidate(name, { yaml }, sha256(yaml), facts) : skipped(name, `${facts.origin ?? facts.identity.from}: ${why}`);
}
