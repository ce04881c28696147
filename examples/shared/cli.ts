// Command-line parsing shared by the examples: clusters as `--cluster NAME=KUBECONFIG[#k=v,...]`,
// checked before anything starts so a bad kubeconfig fails at once with what to fix.
import { parseArgs } from 'node:util';
import { loadKubeconfig } from 'rxfleet/client';
import { clusterName, ConfigError, isLeft } from 'rxfleet';
import type { KubeconfigEntry } from 'rxfleet/providers/clusters';

/** What every example accepts (the probe port comes from PROBE_PORT, see probePort). */
export interface ExampleArgs {
  readonly clusters: readonly KubeconfigEntry[];
  readonly namespace: string;
}

function entry(spec: string): KubeconfigEntry {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--cluster ${JSON.stringify(spec)}: expected NAME=KUBECONFIG_PATH[#label=value,...]`);
  const name = spec.slice(0, eq);
  const [file = '', labelText] = spec.slice(eq + 1).split('#', 2);
  const labels: Record<string, string> = {};
  for (const pair of labelText === undefined || labelText === '' ? [] : labelText.split(',')) {
    const [k = '', v = ''] = pair.split('=', 2);
    if (k === '') throw new ConfigError(`--cluster ${name}: label ${JSON.stringify(pair)} must be key=value`);
    labels[k] = v;
  }
  // Fail now, not at engagement: a kubeconfig that does not parse can never work.
  const kc = loadKubeconfig(clusterName(name), { file });
  if (isLeft(kc)) throw new ConfigError(`--cluster ${name}: ${kc.left.message}; fix the file or point --cluster at another`);
  return { name, kubeconfig: { file }, labels };
}

/**
 * Parses an example's arguments.
 *
 * @param argv - `process.argv.slice(2)`.
 * @param defaults - the example's default namespace.
 * @returns the clusters (kubeconfigs checked) and namespace.
 * @throws ConfigError with what to fix.
 */
export function parseExampleArgs(argv: readonly string[], defaults: { readonly namespace: string }): ExampleArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        cluster: { type: 'string', multiple: true, default: [] },
        namespace: { type: 'string', default: defaults.namespace },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}; usage: --cluster NAME=KUBECONFIG[#k=v,...] (repeat) [--namespace NS]`);
  }
  if (values.cluster.length === 0) throw new ConfigError('no clusters: pass at least one --cluster NAME=KUBECONFIG_PATH');
  return { clusters: values.cluster.map(entry), namespace: values.namespace };
}

/**
 * The probe server's port: `PROBE_PORT` (default 0, a free port; the URL is logged at start).
 *
 * @returns the port.
 * @throws ConfigError when PROBE_PORT is not a port number.
 */
export function probePort(): number {
  const text = process.env.PROBE_PORT ?? '0';
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PROBE_PORT=${text}: expected a port number (0 picks a free one)`);
  return port;
}
