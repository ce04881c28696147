// `npm start`: a local kcp, two workspaces, and what rxfleet's client sees in each of them.
// The full guided demo (fan-out across the fleet) replaces this once the runtime exists.
import { clusterName, createClusterClient, E, namespaces } from '../src/index.js';
import type { KcpHandle, KcpWorkspace } from '../test/support/kcp.js';
import { startKcp } from '../test/support/kcp.js';

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function describeCluster(ws: KcpWorkspace): Promise<string> {
  const cluster = clusterName(ws.path);
  const client = createClusterClient(cluster, { yaml: ws.kubeconfigYaml() });
  if (E.isLeft(client)) return `  ${cluster}: ${client.left.message}`;
  try {
    const ns = await client.right.list(namespaces);
    if (E.isLeft(ns)) return `  ${cluster}: ${ns.left.message}`;
    const list = ns.right.items.map((n) => n.metadata.name ?? '?').join(', ');
    return `  ${cluster.padEnd(12)} logical cluster ${ws.logicalCluster.padEnd(18)} ${client.right.server}\n${' '.repeat(15)}namespaces: ${list}`;
  } finally {
    client.right.close();
  }
}

async function main(): Promise<number> {
  let kcp: KcpHandle | undefined;
  const stop = async (code: number): Promise<number> => {
    const k = kcp;
    kcp = undefined;
    if (k !== undefined) {
      say('stopping kcp...');
      await k.stop();
    }
    return code;
  };
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      void stop(code).then((c) => process.exit(c));
    });
  }

  say('starting a local kcp (embedded etcd, 127.0.0.1 only)...');
  kcp = await startKcp();
  say(`kcp is ready at ${kcp.baseUrl}`);

  const workspaces: KcpWorkspace[] = [];
  for (const name of ['east', 'west']) {
    const ws = await kcp.createWorkspace(name);
    say(`created workspace ${ws.path}`);
    workspaces.push(ws);
  }

  say('\nclusters rxfleet sees:');
  for (const ws of workspaces) say(await describeCluster(ws));
  return stop(0);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
