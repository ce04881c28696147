// Runs the ha example as one replica of several. Start two or three, in separate terminals:
//   node dist-demo/examples/ha/main.js --cluster local=$HOME/.kube/config --replicas leader
//   node dist-demo/examples/ha/main.js --cluster local=$HOME/.kube/config --replicas shard --lease-namespace rxfleet-system
// then label some namespaces `rxfleet.io/tenant=true`, create ConfigMaps labelled
// `rxfleet.io/ha-role=input` in them, and watch `<name>-out` appear, annotated with the writer.
// Stop one replica (Ctrl-C, kill -9, kill -STOP) and see another take over. README.md has more.
import { ConfigError, main } from 'rxfleet';
import { probePort } from '../shared/cli.js';
import type { HaSetup } from './cli.js';
import { parseHaArgs } from './cli.js';
import { copyController } from './controller.js';

// The flags are parsed before `main` because the `replicas` option needs the server they name;
// a ConfigError here is reported the way `main` reports one (one line, exit code 2).
let setup: HaSetup | undefined;
try {
  setup = parseHaArgs(process.argv.slice(2), process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`configuration error: ${err.message}\n`);
  process.exitCode = 2;
}

if (setup !== undefined) {
  const s = setup;
  void main(() => copyController({ server: s.server, identity: s.identity, tenantSelector: s.tenantSelector, reconcileDelayMs: s.reconcileDelayMs, stampOutputs: s.stampOutputs }), {
    // PROBE_HOST=0.0.0.0 in a Pod (deploy/ha), so that the kubelet reaches /healthz and /readyz.
    http: { host: process.env.PROBE_HOST ?? '127.0.0.1', port: probePort() },
    // Leader election: one replica engages every cluster, the others wait on the Lease.
    // Sharding: each cluster is engaged by exactly one live replica. Either way, a replica that
    // can no longer prove it holds its Lease has its writes refused (KubeError `Fenced`).
    replicas: s.replicas,
  });
}
