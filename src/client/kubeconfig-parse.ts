// Parsing a kubeconfig's text into plain data, with js-yaml alone: @kubernetes/client-node's
// KubeConfig costs ~85 MiB and ~0.3 s to import (it pulls in the whole generated API), and rxfleet
// only needs the document. Entries are checked as client-node checks them (a cluster without a
// server, an entry without a name fail the whole file) and nothing is read from disk here: files
// are read when credentials are first needed.
import { isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import type { ExecPluginConfig } from './exec-credential.js';
import type { KubeconfigAuthProvider, KubeconfigCluster, KubeconfigContext, KubeconfigDocument, KubeconfigUser } from './kubeconfig-types.js';

type Json = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field: absent, null and '' are absent; numbers and booleans are written out (YAML reads `token: 1234` as a number). */
function text(entry: Json, key: string, at: string): string | undefined {
  const v = entry[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`${at}.${key} must be a string`);
}

/** Every field of T, absent ones as undefined. */
type Loose<T> = { [K in keyof T]-?: T[K] | undefined };

/** Only the defined fields, so that the data compares and hashes the same however it was written. */
function defined<T extends object>(o: Loose<T>): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function entries(doc: Json, key: string): readonly unknown[] {
  const v = doc[key];
  return Array.isArray(v) ? v : [];
}

function named(e: unknown, at: string, body: string): { readonly name: string; readonly body: Json | undefined } {
  const name = isObject(e) ? text(e, 'name', at) : undefined;
  if (name === undefined) throw new Error(`${at}.name is missing`);
  const inner = isObject(e) ? e[body] : undefined;
  return { name, body: isObject(inner) ? inner : undefined };
}

function path(file: string | undefined, directory: string | undefined): string | undefined {
  return file === undefined || directory === undefined || isAbsolute(file) ? file : join(directory, file);
}

function cluster(e: unknown, i: number, directory: string | undefined): KubeconfigCluster {
  const at = `clusters[${i}]`;
  const { name, body } = named(e, at, 'cluster');
  if (body === undefined) throw new Error(`${at}.cluster is missing`);
  const server = text(body, 'server', `${at}.cluster`);
  if (server === undefined) throw new Error(`${at}.cluster.server is missing`);
  return defined<KubeconfigCluster>({
    name,
    server: server.replace(/\/$/, ''),
    caData: text(body, 'certificate-authority-data', `${at}.cluster`),
    caFile: path(text(body, 'certificate-authority', `${at}.cluster`), directory),
    skipTLSVerify: body['insecure-skip-tls-verify'] === true,
    tlsServerName: text(body, 'tls-server-name', `${at}.cluster`),
    proxyUrl: text(body, 'proxy-url', `${at}.cluster`),
  });
}

function exec(v: unknown, at: string): ExecPluginConfig | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new Error(`${at} must be a mapping`);
  const args = v.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new Error(`${at}.args must be a list of strings`);
  const env = v.env ?? [];
  if (!Array.isArray(env)) throw new Error(`${at}.env must be a list`);
  const vars = env.map((x: unknown, j) => {
    if (!isObject(x) || typeof x.name !== 'string' || (x.value !== undefined && x.value !== null && typeof x.value !== 'string')) throw new Error(`${at}.env[${j}] must have a string name and value`);
    return { name: x.name, value: typeof x.value === 'string' ? x.value : '' };
  });
  // A missing command is refused when the user is used (loadKubeconfig), as kubectl does, so that
  // one broken user does not make a file's other contexts unusable.
  return defined<ExecPluginConfig>({
    command: text(v, 'command', at) ?? '',
    args: args as string[],
    env: vars,
    apiVersion: text(v, 'apiVersion', at),
    provideClusterInfo: v.provideClusterInfo === true,
  });
}

function authProvider(v: unknown, at: string): KubeconfigAuthProvider | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new Error(`${at} must be a mapping`);
  return { name: text(v, 'name', at) ?? '', config: isObject(v.config) ? { ...v.config } : {} };
}

function user(e: unknown, i: number, directory: string | undefined): KubeconfigUser {
  const at = `users[${i}]`;
  const { name, body } = named(e, at, 'user');
  const u = body ?? {};
  const where = `${at}.user`;
  return defined<KubeconfigUser>({
    name,
    token: text(u, 'token', where),
    // kubectl writes `tokenFile`; client-node reads `token-file`: both are honoured.
    tokenFile: path(text(u, 'tokenFile', where) ?? text(u, 'token-file', where), directory),
    certData: text(u, 'client-certificate-data', where),
    certFile: path(text(u, 'client-certificate', where), directory),
    keyData: text(u, 'client-key-data', where),
    keyFile: path(text(u, 'client-key', where), directory),
    username: text(u, 'username', where),
    password: text(u, 'password', where),
    impersonateUser: text(u, 'as', where),
    exec: exec(u.exec, `${where}.exec`),
    authProvider: authProvider(u['auth-provider'], `${where}.auth-provider`),
  });
}

function context(e: unknown, i: number): KubeconfigContext {
  const at = `contexts[${i}]`;
  const { name, body } = named(e, at, 'context');
  if (body === undefined) throw new Error(`${at}.context is missing`);
  const clusterName = text(body, 'cluster', `${at}.context`);
  if (clusterName === undefined) throw new Error(`${at}.context.cluster is missing`);
  return defined<KubeconfigContext>({ name, cluster: clusterName, user: text(body, 'user', `${at}.context`), namespace: text(body, 'namespace', `${at}.context`) });
}

/**
 * A kubeconfig document from its parsed YAML (for callers that also read other parts of it, such
 * as the file provider's context extensions).
 *
 * @example
 * ```ts
 * const doc = kubeconfigDocument(load(text), '/etc/fleet');
 * ```
 * @param doc - the parsed YAML.
 * @param directory - where relative file paths are resolved from (the kubeconfig file's directory); absent: left as written.
 * @returns the document.
 * @throws Error naming the first invalid entry (`clusters[0].cluster.server is missing`), never echoing a value.
 */
export function kubeconfigDocument(doc: unknown, directory?: string): KubeconfigDocument {
  if (!isObject(doc)) throw new Error('not a kubeconfig: the document is not a mapping');
  const currentContext = text(doc, 'current-context', 'kubeconfig');
  return defined<KubeconfigDocument>({
    clusters: entries(doc, 'clusters').map((e, i) => cluster(e, i, directory)),
    users: entries(doc, 'users').map((e, i) => user(e, i, directory)),
    contexts: entries(doc, 'contexts').map((e, i) => context(e, i)),
    currentContext,
  });
}

/**
 * Parses a kubeconfig's text (YAML or JSON).
 *
 * @example
 * ```ts
 * const doc = parseKubeconfig(readFileSync(file, 'utf8'), dirname(file)); // doc.contexts, doc.currentContext…
 * ```
 * @param yaml - the kubeconfig's text.
 * @param directory - where relative file paths are resolved from; absent: left as written.
 * @returns the document.
 * @throws the js-yaml error (with `reason` and `mark`) or an Error naming the invalid entry.
 */
export function parseKubeconfig(yaml: string, directory?: string): KubeconfigDocument {
  // JSON (exportConfig(), kubeconfigs written by tools) reads ~20× faster with JSON.parse; when it refuses, js-yaml says where.
  let doc: unknown;
  if (/^\s*\{/.test(yaml)) {
    try {
      doc = JSON.parse(yaml);
    } catch {
      doc = undefined;
    }
  }
  return kubeconfigDocument(doc ?? load(yaml), directory);
}
