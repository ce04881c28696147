// What `rxfleet-sync-agent` runs with: the configuration file read and checked, and the two kubeconfigs
// found (flag, then environment, then the file's `kubeconfigs` block, relative to the file), each
// checked before anything starts so a typo fails at once with what to fix.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { JSON_SCHEMA, load, loadAll } from 'js-yaml';
import { loadKubeconfig } from 'rxfleet/client';
import { clusterName } from 'rxfleet';
import { ConfigError } from 'rxfleet';
import { isLeft } from 'rxfleet';
import { parseSyncConfig } from './config.js';
import type { PublishedResourceFile } from './published-resource.js';
import type { SyncConfig } from './types.js';

/**
 * What the `sync` command was given (flags; unset ones undefined).
 *
 * @example
 * ```ts
 * const flags: SyncFlags = { config: 'sync.yaml', kcpKubeconfig: 'provider.kubeconfig', serviceKubeconfig: 'service.kubeconfig' };
 * ```
 */
export interface SyncFlags {
  readonly config: string;
  readonly kcpKubeconfig?: string | undefined;
  readonly serviceKubeconfig?: string | undefined;
}

/**
 * What the agent runs with: the checked configuration and the two kubeconfig files.
 *
 * @example
 * ```ts
 * const { config, kcpKubeconfig, serviceKubeconfig }: SyncOptions = syncOptions({ config: 'sync.yaml' }, process.env);
 * ```
 */
export interface SyncOptions {
  readonly config: SyncConfig;
  /** The provider workspace's kubeconfig (server `https://<kcp>/clusters/<provider workspace>`). */
  readonly kcpKubeconfig: string;
  /** The service cluster's kubeconfig. */
  readonly serviceKubeconfig: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`--config ${file}: cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    // The JSON schema keeps `2024-01-01` and the like as strings, as parseSyncConfig does.
    return load(text, { schema: JSON_SCHEMA, filename: file });
  } catch (err) {
    throw new ConfigError(`${file}: not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// The file's own `kubeconfigs: { kcp, service }` block, which is the command's, not the agent's.
function fileKubeconfigs(file: string, data: unknown): { readonly rest: unknown; readonly kcp?: string; readonly service?: string } {
  if (!isRecord(data) || !('kubeconfigs' in data)) return { rest: data };
  const { kubeconfigs, ...rest } = data;
  if (!isRecord(kubeconfigs)) throw new ConfigError(`${file}: kubeconfigs: expected a mapping with kcp and/or service (kubeconfig paths)`);
  const out: { rest: unknown; kcp?: string; service?: string } = { rest };
  for (const [k, v] of Object.entries(kubeconfigs)) {
    if (k !== 'kcp' && k !== 'service') throw new ConfigError(`${file}: kubeconfigs.${k}: unknown key; expected kcp or service`);
    if (typeof v !== 'string' || v === '') throw new ConfigError(`${file}: kubeconfigs.${k}: expected a kubeconfig path`);
    out[k] = resolve(dirname(file), v);
  }
  return out;
}

// The files `publishedResources` names (relative to the config file; a directory: its .yaml, .yml
// and .json files, in name order), each read as YAML documents. Checking them is parseSyncConfig's.
function publishedResourceFiles(configFile: string, data: unknown): readonly PublishedResourceFile[] {
  const listed = isRecord(data) && Array.isArray(data.publishedResources) ? (data.publishedResources as readonly unknown[]) : [];
  const paths = listed.filter((p): p is string => typeof p === 'string' && p !== '').map((p) => resolve(dirname(configFile), p));
  const files = paths.flatMap((p) => {
    try {
      return statSync(p).isDirectory() ? readdirSync(p).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => join(p, f)) : [p];
    } catch (err) {
      throw new ConfigError(`${configFile}: publishedResources: cannot read ${p}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`${configFile}: publishedResources: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      return { file, documents: loadAll(text, { schema: JSON_SCHEMA, filename: file }) };
    } catch (err) {
      throw new ConfigError(`${file}: not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}

function kubeconfigFile(flag: string, envName: string, file: string | undefined): string {
  if (file === undefined || file === '') throw new ConfigError(`--${flag} is required (or ${envName}, or kubeconfigs in the config file)`);
  const kc = loadKubeconfig(clusterName(flag), { file });
  if (isLeft(kc)) throw new ConfigError(`--${flag}: ${kc.left.message}; fix the file or point --${flag} at another`);
  return file;
}

// Each installation's kubeconfig, relative to the config file, checked like the flags' (naming the installation).
function withInstallationFiles(file: string, config: SyncConfig): SyncConfig {
  if (config.installations === undefined) return config;
  const installations = config.installations.map((i, n) => {
    const path = resolve(dirname(file), i.kubeconfig);
    const kc = loadKubeconfig(clusterName(i.name), { file: path });
    if (isLeft(kc)) throw new ConfigError(`${file}: installations[${n}] "${i.name}": kubeconfig: ${kc.left.message}`);
    return Object.freeze({ ...i, kubeconfig: path });
  });
  return Object.freeze({ ...config, installations: Object.freeze(installations) });
}

/**
 * Reads and checks everything `rxfleet-sync-agent` needs before it connects anywhere. Kubeconfigs come
 * from the flag, else the environment (`KCP_KUBECONFIG`, `SERVICE_KUBECONFIG`), else the config
 * file's `kubeconfigs: { kcp: <path>, service: <path> }` (relative to the file). Each of the
 * config's `installations` has its own kubeconfig, relative to the file too (made absolute here).
 *
 * @example
 * ```ts
 * const options = syncOptions({ config: 'examples/sync-agent/config.yaml', kcpKubeconfig: 'provider.kubeconfig' }, process.env);
 * ```
 * @param flags - the command's flags.
 * @param env - the environment.
 * @returns the checked configuration and kubeconfig paths.
 * @throws ConfigError naming the file, the field and what to fix.
 */
export function syncOptions(flags: SyncFlags, env: NodeJS.ProcessEnv = process.env): SyncOptions {
  const { rest, kcp, service } = fileKubeconfigs(flags.config, readConfigFile(flags.config));
  const parsed = parseSyncConfig(rest, flags.config, publishedResourceFiles(flags.config, rest));
  return {
    config: withInstallationFiles(flags.config, parsed),
    kcpKubeconfig: kubeconfigFile('kcp-kubeconfig', 'KCP_KUBECONFIG', flags.kcpKubeconfig ?? env.KCP_KUBECONFIG ?? kcp),
    serviceKubeconfig: kubeconfigFile('service-kubeconfig', 'SERVICE_KUBECONFIG', flags.serviceKubeconfig ?? env.SERVICE_KUBECONFIG ?? service),
  };
}
