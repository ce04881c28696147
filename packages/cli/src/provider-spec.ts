// `--provider <spec>` of the CLI: a small grammar naming one of the existing providers, so a
// one-shot command can reach a fleet without a program.
import type { Provider } from 'rxfleet';
import { ConfigError } from 'rxfleet';
import { kubeconfigFileProvider } from 'rxfleet/providers/file';
import { apiExportProvider } from 'rxfleet/providers/kcp';
import { multiProvider } from 'rxfleet/providers/multi';
import { singleClusterProvider } from 'rxfleet/providers/single';

/**
 * The provider specs the CLI understands:
 * - `file:<path>[,<path>…]` (or a bare path): every context of these kubeconfig files, directories
 *   or globs is a cluster named after its context (`kubeconfigFileProvider`);
 * - `kubeconfig:<path>[,<context>]`: one cluster, named after the context (default: `current`);
 * - `apiexport:<export>,<kubeconfig>`: every workspace bound to a kcp APIExport, with the provider
 *   workspace's kubeconfig (`apiExportProvider`).
 *
 * @example
 * ```ts
 * const spec: ProviderSpec = parseProviderSpec('kubeconfig:/etc/hub.kubeconfig,hub');
 * ```
 */
export type ProviderSpec =
  | { readonly type: 'file'; readonly paths: readonly string[] }
  | { readonly type: 'kubeconfig'; readonly file: string; readonly context?: string }
  | { readonly type: 'apiexport'; readonly exportName: string; readonly kubeconfig: string };

const grammar = 'file:<path>[,<path>...] | kubeconfig:<path>[,<context>] | apiexport:<export>,<kubeconfig>';

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
  const colon = text.indexOf(':');
  const scheme = colon < 0 ? '' : text.slice(0, colon);
  const known = scheme === 'file' || scheme === 'kubeconfig' || scheme === 'apiexport';
  const parts = (known ? text.slice(colon + 1) : text).split(',').filter((p) => p !== '');
  const bad = (why: string): ConfigError => new ConfigError(`--provider ${JSON.stringify(text)}: ${why}; expected ${grammar}`);
  if (!known || scheme === 'file') {
    if (parts.length === 0) throw bad('no path');
    return { type: 'file', paths: parts };
  }
  const [first, second, extra] = parts;
  if (first === undefined || extra !== undefined) throw bad('wrong number of parts');
  if (scheme === 'kubeconfig') return second === undefined ? { type: 'kubeconfig', file: first } : { type: 'kubeconfig', file: first, context: second };
  if (second === undefined) throw bad('apiexport needs the export name and the kubeconfig');
  return { type: 'apiexport', exportName: first, kubeconfig: second };
}

function providerOf(spec: ProviderSpec): Provider {
  switch (spec.type) {
    case 'file':
      // One look: no directory watching, no probe (a cluster that does not answer shows as a failed row).
      return kubeconfigFileProvider({ paths: spec.paths, watchDirectories: false, probe: false });
    case 'kubeconfig':
      return singleClusterProvider({
        name: spec.context ?? 'current',
        kubeconfig: spec.context === undefined ? { file: spec.file } : { file: spec.file, context: spec.context },
      });
    case 'apiexport':
      return apiExportProvider({ kubeconfig: { file: spec.kubeconfig } }, spec.exportName);
  }
}

/**
 * The provider of one or several specs. Several are merged with `multiProvider`, each under its
 * position (`0#east`, `1#root:org:ws`), so equal cluster names from two specs stay apart.
 *
 * @example
 * ```ts
 * const { provider, count } = providerFromSpecs(['file:/etc/fleet', 'kubeconfig:/etc/hub.kubeconfig']);
 * ```
 * @param texts - the `--provider` values.
 * @returns the provider and how many providers it merges (each says `discovered` once).
 * @throws ConfigError when there is none or one does not parse.
 */
export function providerFromSpecs(texts: readonly string[]): { readonly provider: Provider; readonly count: number } {
  const specs = texts.map(parseProviderSpec);
  const [only] = specs;
  if (only === undefined) throw new ConfigError(`no --provider given; expected ${grammar}`);
  if (specs.length === 1) return { provider: providerOf(only), count: 1 };
  return { provider: multiProvider(Object.fromEntries(specs.map((s, i) => [String(i), providerOf(s)]))), count: specs.length };
}
