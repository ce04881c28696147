// Runs the sync-agent example's stand-in database operator on the service cluster:
//   node dist-demo/examples/sync-agent/main.js --service service.kubeconfig [--group db.example.dev]
// With INSTALL_CRD=1 it first installs the Database CRD. The agent itself is the CLI:
//   rxfleet-sync-agent --config examples/sync-agent/config.yaml --kcp-kubeconfig provider.kubeconfig --service-kubeconfig service.kubeconfig
import { parseArgs } from 'node:util';
import { createClusterClient } from 'rxfleet/client';
import { clusterName, ConfigError, isLeft, main } from 'rxfleet';
import { singleClusterProvider } from 'rxfleet/providers/single';
import { defaultLogger, exitCodes } from 'rxfleet/runtime';
import { probePort } from '../shared/cli.js';
import { DEFAULT_GROUP, installDatabaseCrd } from './api.js';
import type { DatabaseOperatorOptions } from './operator.js';
import { databaseOperator } from './operator.js';

async function prepare(): Promise<DatabaseOperatorOptions> {
  let values;
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options: { service: { type: 'string' }, group: { type: 'string' } }, strict: true }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}; usage: --service KUBECONFIG [--group GROUP]`);
  }
  const file = values.service ?? process.env.SERVICE_KUBECONFIG;
  if (file === undefined || file === '') throw new ConfigError('--service KUBECONFIG (or SERVICE_KUBECONFIG) is required');
  const group = values.group ?? DEFAULT_GROUP;
  if (process.env.INSTALL_CRD === '1') {
    const client = createClusterClient(clusterName('service'), { file });
    if (isLeft(client)) throw new ConfigError(`--service: ${client.left.message}`);
    await installDatabaseCrd(client.right, group).finally(() => {
      client.right.close();
    });
  }
  return { provider: singleClusterProvider({ name: 'service', kubeconfig: { file } }), group };
}

const log = defaultLogger();
prepare().then(
  (options) => main(databaseOperator(options), { http: { port: probePort() }, logger: log }),
  (err: unknown) => {
    const config = err instanceof ConfigError;
    process.stderr.write(`${config ? 'configuration error' : 'failed'}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = config ? exitCodes.config : exitCodes.failed;
  },
);
