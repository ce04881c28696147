// The kcp-provider example's command line: the provider workspace's kubeconfig, the APIExport's
// name, the downstream cluster's kubeconfig and namespace, as flags or environment variables.
// Kubeconfigs are checked before anything starts, as in examples/shared/cli.ts.
import { parseArgs } from 'node:util';
import { loadKubeconfig } from 'rxfleet/client';
import { clusterName, ConfigError, isLeft } from 'rxfleet';
import { DEFAULT_EXPORT } from './api.js';

export interface KcpProviderArgs {
  /** The provider workspace's kubeconfig (server `https://<kcp>/clusters/<provider workspace>`). */
  readonly provider: string;
  readonly exportName: string;
  readonly downstream: string;
  readonly namespace: string;
}

const USAGE = 'usage: --provider KUBECONFIG --downstream KUBECONFIG [--export NAME] [--namespace NS] (or PROVIDER_KUBECONFIG, DOWNSTREAM_KUBECONFIG, APIEXPORT, NAMESPACE)';

function kubeconfigFile(flag: string, file: string | undefined): string {
  if (file === undefined || file === '') throw new ConfigError(`--${flag} is required; ${USAGE}`);
  // Fail now, not at engagement: a kubeconfig that does not parse can never work.
  const kc = loadKubeconfig(clusterName(flag), { file });
  if (isLeft(kc)) throw new ConfigError(`--${flag}: ${kc.left.message}; fix the file or point --${flag} at another`);
  return file;
}

/**
 * Parses the arguments; flags win over the environment.
 *
 * @param argv - `process.argv.slice(2)`.
 * @param env - the environment.
 * @returns the checked arguments.
 * @throws ConfigError with what to fix.
 */
export function parseKcpProviderArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): KcpProviderArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { provider: { type: 'string' }, export: { type: 'string' }, downstream: { type: 'string' }, namespace: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}; ${USAGE}`);
  }
  return {
    provider: kubeconfigFile('provider', values.provider ?? env.PROVIDER_KUBECONFIG),
    downstream: kubeconfigFile('downstream', values.downstream ?? env.DOWNSTREAM_KUBECONFIG),
    exportName: values.export ?? env.APIEXPORT ?? DEFAULT_EXPORT,
    namespace: values.namespace ?? env.NAMESPACE ?? 'mongodb-instances',
  };
}
