// Runs namespaces-local against one cluster:
//   node dist-demo/examples/namespaces-local/main.js --cluster local=$HOME/.kube/config  (TENANT_SELECTOR overrides the selector)
// then `kubectl create ns team-a && kubectl label ns team-a rxfleet.dev/tenant=true`.
import { createClusterClient } from 'rxfleet/client';
import { clusterName, ConfigError, isLeft, main } from 'rxfleet';
import { parseExampleArgs, probePort } from '../shared/cli.js';
import { TENANT_SELECTOR, tenantSettingsController } from './controller.js';

void main(
  () => {
    const args = parseExampleArgs(process.argv.slice(2), { namespace: '' });
    const [first] = args.clusters;
    if (first === undefined || args.clusters.length > 1) throw new ConfigError('pass exactly one --cluster: its namespaces become the fleet');
    const client = createClusterClient(clusterName(first.name), first.kubeconfig);
    if (isLeft(client)) throw new ConfigError(client.left.message);
    return tenantSettingsController({ name: client.right.cluster, client: client.right }, process.env.TENANT_SELECTOR ?? TENANT_SELECTOR);
  },
  { http: { port: probePort() } },
);
