// Runs fanout-status (and the member agent standing in for each member's workload controller):
//   node dist-demo/examples/fanout-status/main.js --cluster hub=hub.kubeconfig#role=hub \
//     --cluster east=east.kubeconfig#role=member,region=eu --cluster west=west.kubeconfig#role=member,region=us
// With INSTALL_CRDS=1 it installs the Rollout CRD in every cluster first.
import { createClusterClient } from 'rxfleet/client';
import type { RunResult } from 'rxfleet';
import { clusterName, ConfigError, isLeft, run } from 'rxfleet';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { exitCodes } from 'rxfleet/runtime';
import { parseExampleArgs, probePort } from '../shared/cli.js';
import { fanoutController, memberAgent } from './controller.js';
import { installRolloutCrd } from './rollout.js';

async function start(): Promise<RunResult> {
  const args = parseExampleArgs(process.argv.slice(2), { namespace: 'default' });
  if (!args.clusters.some((c) => c.labels?.role === 'hub')) throw new ConfigError('no hub: mark one cluster with #role=hub, e.g. --cluster hub=hub.kubeconfig#role=hub');
  if (process.env.INSTALL_CRDS === '1') {
    for (const c of args.clusters) {
      const client = createClusterClient(clusterName(c.name), c.kubeconfig);
      if (isLeft(client)) throw new ConfigError(client.left.message);
      await installRolloutCrd(client.right).finally(() => {
        client.right.close();
      });
    }
  }
  // One provider per controller: each run subscribes its own and disengages it at the end.
  const hub = await run(fanoutController({ provider: clusterListProvider(args.clusters), namespace: args.namespace }), { http: { port: probePort() } });
  const agent = await run(memberAgent({ provider: clusterListProvider(args.clusters), namespace: args.namespace }), { http: false });
  const results = await Promise.all([hub.done, agent.done]);
  return results.reduce((worst, r) => (r.code > worst.code ? r : worst));
}

start().then(
  (r) => {
    process.exitCode = r.code;
  },
  (err: unknown) => {
    const config = err instanceof ConfigError;
    process.stderr.write(`${config ? 'configuration error' : 'failed'}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = config ? exitCodes.config : exitCodes.failed;
  },
);
