// `--provider <spec>` of the CLI: a small grammar naming one of the existing providers, so a
// one-shot command can reach a fleet without a program; and the names of the clusters it gives,
// which say where each came from.
import { basename } from 'node:path';
import type { Provider } from 'rxfleet';
import { clusterName, ConfigError } from 'rxfleet';
import { loadKubeconfig } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { KubeconfigEntry } from 'rxfleet/providers/clusters';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { kubeconfigFileProvider } from 'rxfleet/providers/file';
import { apiExportProvider } from 'rxfleet/providers/kcp';
import { multiProvider } from 'rxfleet/providers/multi';

/**
 * The provider specs the CLI understands, each optionally named (`<name>=<spec>`):
 * - `file:<path>[,<path>…]` (or a bare path): every context of these kubeconfig files, directories
 *   or globs is a cluster named after its context (`kubeconfigFileProvider`);
 * - `kubeconfig:<path>[,<context>]`: one cluster, the context (default: the file's current one);
 * - `apiexport:<export>,<kubeconfig>`: every workspace bound to a kcp APIExport, with the provider
 *   workspace's kubeconfig (`apiExportProvider`).
 *
 * @example
 * ```ts
 * const spec: ProviderSpec = parseProviderSpec('hub=kubeconfig:/etc/hub.kubeconfig,admin'); // { type: 'kubeconfig', name: 'hub', file: '/etc/hub.kubeconfig', context: 'admin' }
 * ```
 */
export type ProviderSpec = ({ readonly type: 'file'; readonly paths: readonly string[] } | { readonly type: 'kubeconfig'; readonly file: string; readonly context?: string } | { readonly type: 'apiexport'; readonly exportName: string; readonly kubeconfig: string }) & {
  /** The spec's own name (`<name>=` before it), which its clusters' names start with. */
  readonly name?: string;
};

const grammar = '[<name>=]file:<path>[,<path>...] | [<name>=]kubeconfig:<path>[,<context>] | [<name>=]apiexport:<export>,<kubeconfig>';

/**
 * Parses one `--provider` value.
 *
 * @example
 * ```ts
 * parseProviderSpec('file:/etc/fleet'); // { type: 'file', paths: ['/etc/fleet'] }
 * ```
 * @param text - the spec.
 * @returns the parsed spec.
 * @throws ConfigError naming the grammar when it does not parse.
 */
export function parseProviderSpec(text: string): ProviderSpec {
  const named = /^([^=:/,#\s]+)=(.*)$/.exec(text);
  const name = named?.[1];
  const body = named?.[2] ?? text;
  const colon = body.indexOf(':');
  const scheme = colon < 0 ? '' : body.slice(0, colon);
  const known = scheme === 'file' || scheme === 'kubeconfig' || scheme === 'apiexport';
  const parts = (known ? body.slice(colon + 1) : body).split(',').filter((p) => p !== '');
  const bad = (why: string): ConfigError => new ConfigError(`--provider ${JSON.stringify(text)}: ${why}; expected ${grammar}`);
  const withName = name === undefined ? {} : { name };
  if (!known || scheme === 'file') {
    if (parts.length === 0) throw bad('no path');
    return { type: 'file', paths: parts, ...withName };
  }
  const [first, second, extra] = parts;
  if (first === undefined || extra !== undefined) throw bad('wrong number of parts');
  if (scheme === 'kubeconfig') return second === undefined ? { type: 'kubeconfig', file: first, ...withName } : { type: 'kubeconfig', file: first, context: second, ...withName };
  if (second === undefined) throw bad('apiexport needs the export name and the kubeconfig');
  return { type: 'apiexport', exportName: first, kubeconfig: second, ...withName };
}

// The last path segment that is not a glob pattern: `/etc/fleet/*.yaml` → `fleet`.
function shortName(path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && !/[*?[{]/.test(s));
  return segments.at(-1) ?? path;
}

// The context a kubeconfig spec names: the given one, else the file's current one (`current` when
// the file does not load: the provider then reports why, naming the file).
function contextOf(spec: Extract<ProviderSpec, { type: 'kubeconfig' }>): string {
  if (spec.context !== undefined) return spec.context;
  const kc = loadKubeconfig(clusterName(spec.file), { file: spec.file });
  return E.isRight(kc) ? kc.right.context.name : 'current';
}

interface Group {
  readonly from: string;
  readonly provider?: Provider;
  readonly entries: KubeconfigEntry[];
}

/**
 * The provider of one or several specs, its clusters named after where they came from:
 * - a `kubeconfig:` cluster is `<file>#<context>` (`east.yaml#prod`; the context given, else the
 *   file's current one), the file being its base name;
 * - a `file:` or `apiexport:` cluster keeps the provider's name (its context, its logical cluster)
 *   when that spec is the only one, else `<spec>#<cluster>`, the spec being the base name of its
 *   first path or the export's name;
 * - a named spec (`<name>=<spec>`) puts its name where the file, path or export would be.
 *
 * Several are merged with `multiProvider` (one `discovered` report ends their first pass), one per
 * name: the `kubeconfig:` specs of one name are one provider (`clusterListProvider`). The names
 * are the same on every run, whatever the order of the specs.
 *
 * @example
 * ```ts
 * const provider = providerFromSpecs(['file:/etc/fleet', 'kubeconfig:/etc/hub.kubeconfig,admin']);
 * // clusters fleet#<context>…, hub.kubeconfig#admin
 * ```
 * @param texts - the `--provider` values.
 * @returns the provider.
 * @throws ConfigError when there is none, one does not parse, or two give the same name.
 */
export function providerFromSpecs(texts: readonly string[]): Provider {
  const specs = texts.map(parseProviderSpec);
  const [only] = specs;
  if (only === undefined) throw new ConfigError(`no --provider given; expected ${grammar}`);
  if (specs.length === 1 && only.type !== 'kubeconfig' && only.name === undefined) return providerOf(only);
  const groups = new Map<string, Group>();
  specs.forEach((spec, i) => {
    const text = texts[i] ?? '';
    const key = spec.name ?? (spec.type === 'file' ? shortName(spec.paths[0] ?? '') : spec.type === 'kubeconfig' ? basename(spec.file) : spec.exportName);
    const clash = (what: string, other: string): ConfigError =>
      new ConfigError(`--provider ${JSON.stringify(text)} and ${JSON.stringify(other)} both give ${what}; name one of them: <name>=${text.replace(/^[^=:/,#\s]+=/, '')}`);
    const had = groups.get(key);
    if (spec.type !== 'kubeconfig') {
      if (had !== undefined) throw clash(`clusters named "${key}#…"`, had.from);
      groups.set(key, { from: text, provider: providerOf(spec), entries: [] });
      return;
    }
    if (had?.provider !== undefined) throw clash(`clusters named "${key}#…"`, had.from);
    const context = contextOf(spec);
    const group = had ?? { from: text, entries: [] };
    if (group.entries.some((e) => e.name === context)) throw clash(`the cluster "${key}#${context}"`, group.from);
    group.entries.push({ name: context, kubeconfig: spec.context === undefined ? { file: spec.file } : { file: spec.file, context: spec.context } });
    groups.set(key, group);
  });
  return multiProvider(Object.fromEntries([...groups].map(([key, g]) => [key, g.provider ?? clusterListProvider(g.entries)])));
}

function providerOf(spec: Exclude<ProviderSpec, { type: 'kubeconfig' }>): Provider {
  switch (spec.type) {
    case 'file':
      // One look: no directory watching, no probe (a cluster that does not answer shows as a failed row).
      return kubeconfigFileProvider({ paths: spec.paths, watchDirectories: false, probe: false });
    case 'apiexport':
      return apiExportProvider({ management: { file: spec.kubeconfig }, exportName: spec.exportName });
  }
}
