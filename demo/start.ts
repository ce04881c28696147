// `npm start`: a guided tour of rxfleet. It starts a local kcp, makes three workspaces (a hub and
// two members), runs the fanout-status example against them, makes a few changes, and prints what
// happened cluster by cluster. It exits after the last step (pass --stay to keep it running) and
// stops kcp on the way out, Ctrl-C included.
import { pino } from 'pino';
import type { ClusterClient } from 'rxfleet/client';
import { createClusterClient } from 'rxfleet/client';
import type { RunHandle } from 'rxfleet';
import { clusterName, isLeft, isRight, run } from 'rxfleet';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { fanoutController, memberAgent } from '../examples/fanout-status/controller.js';
import type { Rollout } from '../examples/fanout-status/rollout.js';
import { installRolloutCrd, rollouts } from '../examples/fanout-status/rollout.js';
import type { KcpHandle } from '../test/support/kcp.js';
import { startKcp } from '../test/support/kcp.js';

const stay = process.argv.includes('--stay');
const say = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const step = (n: number, what: string): void => {
  say(`\n── step ${n}: ${what}`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Member {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly client: ClusterClient;
  readonly yaml: string;
}

let kcp: KcpHandle | undefined;
const handles: RunHandle[] = [];
const clients: ClusterClient[] = [];

async function cleanup(): Promise<void> {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 5_000 })));
  for (const c of clients.splice(0)) c.close();
  const k = kcp;
  kcp = undefined;
  if (k !== undefined) {
    say('stopping kcp...');
    await k.stop();
  }
}

/** Polls until `probe` holds, up to `ms`. */
async function until(what: string, probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const outcomes: string[] = [];

async function show(hub: Member, members: readonly Member[], name: string): Promise<void> {
  const counts = new Map<string, number>();
  for (const o of outcomes.splice(0)) counts.set(o, (counts.get(o) ?? 0) + 1);
  say(`  reconciles since the last step: ${[...counts].map(([o, n]) => `${n} × ${o}`).join(', ') || 'none'}`);
  const h = await hub.client.get(rollouts, name, { namespace: 'default' });
  if (isLeft(h)) say(`  ${'hub'.padEnd(6)} Rollout ${name}: ${h.left.type === 'NotFound' ? 'gone' : h.left.message}`);
  else {
    const s = h.right.status;
    say(`  ${'hub'.padEnd(6)} Rollout ${name}: image ${h.right.spec.image}, ready ${s?.ready ?? 0}/${s?.total ?? 0}, finalizers [${(h.right.metadata.finalizers ?? []).join(', ')}]`);
    for (const c of s?.clusters ?? []) say(`  ${''.padEnd(6)}   ↳ ${c.cluster}: ${c.phase}${c.image === undefined ? '' : ` (${c.image})`}`);
  }
  for (const m of members) {
    const copy = await m.client.get(rollouts, name, { namespace: 'default' });
    const text = isLeft(copy) ? (copy.left.type === 'NotFound' ? 'no copy' : copy.left.message) : `copy with image ${copy.right.spec.image}, status ${copy.right.status?.phase ?? 'none yet'}`;
    say(`  ${m.name.padEnd(6)} [${Object.entries(m.labels).map(([k, v]) => `${k}=${v}`).join(',')}] ${text}`);
  }
}

async function main(): Promise<number> {
  say('rxfleet demo: one controller, a fleet of kcp workspaces, written as RxJS pipelines.');
  say('starting a local kcp (embedded etcd, 127.0.0.1 only)...');
  // kcp takes ~30 s to start on two cores: say what it is waiting for instead of going silent.
  kcp = await startKcp({
    onProgress: (line) => {
      say(`  kcp: ${line}`);
    },
  });
  say(`kcp is ready at ${kcp.baseUrl}`);

  const fleet: Member[] = [];
  for (const [name, labels] of [
    ['hub', { role: 'hub' }],
    ['east', { role: 'member', region: 'eu' }],
    ['west', { role: 'member', region: 'us' }],
  ] as const) {
    const ws = await kcp.createWorkspace(name);
    const yaml = ws.kubeconfigYaml();
    const client = createClusterClient(clusterName(name), { yaml });
    if (isLeft(client)) throw new Error(client.left.message);
    clients.push(client.right);
    await installRolloutCrd(client.right);
    fleet.push({ name, labels, client: client.right, yaml });
    say(`created workspace ${ws.path} as cluster "${name}" with labels ${JSON.stringify(labels)} and the Rollout CRD`);
  }
  const [hub, ...members] = fleet as [Member, ...Member[]];
  const entries = fleet.map((m) => ({ name: m.name, kubeconfig: { yaml: m.yaml }, labels: m.labels }));

  step(1, 'run the fanout-status controller (and an agent standing in for each member)');
  const logger = pino({ level: 'silent' }); // the demo narrates; set LOG_LEVEL=info on the examples to see the JSON logs
  const onOutcome = (o: { cluster: string; key: { name: string }; result: string }) => outcomes.push(`${o.cluster}/${o.key.name}: ${o.result}`);
  const fan = await run(fanoutController({ provider: clusterListProvider(entries), namespace: 'default' }), { logger, http: { port: 0 }, onOutcome, signals: false });
  handles.push(fan);
  handles.push(await run(memberAgent({ provider: clusterListProvider(entries), namespace: 'default' }), { logger, http: false, signals: false }));
  await until('the controller to be ready', () => Promise.resolve(fan.health.report().ready));
  say(`ready: ${fan.health.report().clusters.map((c) => `${c.cluster} ${c.state}`).join(', ')}; probes and metrics at ${fan.url ?? '-'}/readyz and /metrics`);

  const name = 'web';
  const write = async (spec: Rollout['spec']) => {
    const r = await hub.client.apply(rollouts, { metadata: { name, namespace: 'default' }, spec }, { fieldManager: 'demo-user', force: true });
    if (isLeft(r)) throw new Error(r.left.message);
  };
  const hubStatus = async () => {
    const r = await hub.client.get(rollouts, name, { namespace: 'default' });
    return isRight(r) ? r.right.status : undefined;
  };

  step(2, 'create Rollout "web" (image web:1) on the hub, for members in region=eu');
  await write({ image: 'web:1', clusterSelector: { matchLabels: { region: 'eu' } } });
  await until('east to report Ready', async () => (await hubStatus())?.ready === 1);
  await show(hub, members, name);

  step(3, 'widen the selector to every member and roll out web:2');
  await write({ image: 'web:2', clusterSelector: { matchLabels: {} } });
  await until('both members to report web:2', async () => {
    const s = await hubStatus();
    return s?.ready === 2 && (s.clusters ?? []).every((c) => c.image === 'web:2');
  });
  await show(hub, members, name);

  step(4, 'someone deletes the copy in west by hand: the controller puts it back');
  const west = members.find((m) => m.name === 'west');
  const before = west === undefined ? undefined : await west.client.get(rollouts, name, { namespace: 'default' });
  const oldUid = before !== undefined && isRight(before) ? before.right.metadata.uid : undefined;
  await west?.client.delete(rollouts, name, { namespace: 'default' });
  await until('west to have a new, Ready copy', async () => {
    const now = await west?.client.get(rollouts, name, { namespace: 'default' });
    return now !== undefined && isRight(now) && now.right.metadata.uid !== oldUid && now.right.status?.phase === 'Ready' && (await hubStatus())?.ready === 2;
  });
  await show(hub, members, name);

  step(5, 'delete the Rollout on the hub: the finalizer removes every copy first');
  await hub.client.delete(rollouts, name, { namespace: 'default' });
  await until('the hub object to go', async () => isLeft(await hub.client.get(rollouts, name, { namespace: 'default' })));
  await show(hub, members, name);

  const metrics = (await fan.metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('rxfleet_reconcile_total') || l.startsWith('rxfleet_write_requests_total'));
  say(`\nmetrics (a few of them, from ${fan.url ?? '-'}/metrics):\n  ${metrics.join('\n  ')}`);

  if (stay) {
    say('\n--stay: still running; try kubectl against the workspaces, Ctrl-C to stop.');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  }
  say('\ndone: stopping the controllers and kcp.');
  await cleanup();
  return 0;
}

let interrupted = false;
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    if (stay || interrupted) return; // with --stay, main() handles the first signal itself
    interrupted = true;
    say(`\n${signal}: stopping...`);
    void cleanup().then(() => process.exit(code));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    void cleanup().then(() => process.exit(1));
  },
);
