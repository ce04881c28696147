// Runs crd-types over the clusters given on the command line (install widget-crd.yaml in each first):
//   node dist-demo/examples/crd-types/main.js --cluster east=east.kubeconfig --namespace default
import { main } from 'rxfleet';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { parseExampleArgs, probePort } from '../shared/cli.js';
import { widgetController } from './controller.js';

void main(
  () => {
    const args = parseExampleArgs(process.argv.slice(2), { namespace: 'default' });
    return widgetController(clusterListProvider(args.clusters), args.namespace);
  },
  { http: { port: probePort() } },
);
