// Runs the kcp-provider example:
//   node dist-demo/examples/kcp-provider/main.js --provider provider.kubeconfig --downstream downstream.kubeconfig \
//     [--export mongodbs.databases.example.dev] [--namespace mongodb-instances]
// With INSTALL_API=1 it first installs the MongoDB APIResourceSchema and APIExport in the provider
// workspace. The downstream namespace is created when missing. The kcp provider's reports
// (workspaces engaged and disengaged, a failing endpoint-slice or binding watch) are logged by
// `main` like every provider's.
import { createClusterClient } from 'rxfleet/client';
import type { Controller } from 'rxfleet';
import { clusterName, ConfigError, isLeft, isRight, main, namespaces } from 'rxfleet';
import { apiExportProvider } from 'rxfleet/providers/kcp';
import { singleClusterProvider } from 'rxfleet/providers/single';
import { defaultLogger, exitCodes } from 'rxfleet/runtime';
import { probePort } from '../shared/cli.js';
import type { MongoDB } from './api.js';
import { installMongoApi } from './api.js';
import { parseKcpProviderArgs } from './cli.js';
import { DOWNSTREAM, kcpProviderController } from './controller.js';

async function withClient(name: string, file: string, use: (c: Parameters<typeof installMongoApi>[0]) => Promise<void>): Promise<void> {
  const client = createClusterClient(clusterName(name), { file });
  if (isLeft(client)) throw new ConfigError(client.left.message);
  await use(client.right).finally(() => {
    client.right.close();
  });
}

async function prepare(log: ReturnType<typeof defaultLogger>): Promise<Controller<MongoDB>> {
  const args = parseKcpProviderArgs(process.argv.slice(2));
  if (process.env.INSTALL_API === '1') {
    await withClient('provider', args.provider, (c) => installMongoApi(c, args.exportName));
    log.info({ export: args.exportName }, 'MongoDB API installed');
  }
  await withClient(DOWNSTREAM, args.downstream, async (c) => {
    const got = await c.get(namespaces, args.namespace);
    if (isRight(got) || got.left.type !== 'NotFound') return;
    const made = await c.apply(namespaces, { metadata: { name: args.namespace } }, { fieldManager: 'kcp-provider' });
    if (isLeft(made)) throw new ConfigError(`namespace ${args.namespace} is missing downstream and cannot be created: ${made.left.message}`);
  });
  // A function: the provider workspace's kubeconfig is re-read after a 401 (a restarted kcp issues a new token).
  const kcp = apiExportProvider({ management: () => ({ file: args.provider }), exportName: args.exportName });
  return kcpProviderController({ kcp, downstream: singleClusterProvider({ name: DOWNSTREAM, kubeconfig: { file: args.downstream } }), namespace: args.namespace });
}

const log = defaultLogger();
prepare(log).then(
  (c) => main(c, { http: { port: probePort() }, logger: log }),
  (err: unknown) => {
    const config = err instanceof ConfigError;
    process.stderr.write(`${config ? 'configuration error' : 'failed'}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = config ? exitCodes.config : exitCodes.failed;
  },
);
