// Runs uniform-baseline over the clusters given on the command line:
//   node dist-demo/examples/uniform-baseline/main.js --cluster east=east.kubeconfig --cluster west=west.kubeconfig
import { main } from 'rxfleet';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { parseExampleArgs, probePort } from '../shared/cli.js';
import { baselineController } from './controller.js';

void main(
  () => {
    const args = parseExampleArgs(process.argv.slice(2), { namespace: 'rxfleet-baseline' });
    return baselineController({ provider: clusterListProvider(args.clusters), namespace: args.namespace });
  },
  { http: { port: probePort() } },
);
