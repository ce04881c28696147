// Side-by-side benchmark against multicluster-runtime (issue 14 item 1): the same controller on
// multicluster-runtime (bench/peer/mcr) and on rxfleet (bench/peer/rxfleet-controller.ts), both on
// the kubeconfig file provider over one private kcp, run alternately by this driver, which owns the
// fleet and measures each output's arrival with its own watches. Prints every run and a table of
// ratios rxfleet ÷ MCR from adjacent pairs, with the load average during the runs.
//
// Run: npm run bench:peer  (npm run build, then node --import ./bench/register.ts bench/peer/driver.ts)
// Environment:
//   BENCH_WORKSPACES   workspaces (default 20; kcp creates one in ~2.3 s here)
//   BENCH_OBJECTS      input ConfigMaps per workspace (default 100, ~1 KB each)
//   BENCH_ROUNDS       rounds of (MCR, rxfleet) (default 2: A, B, A, B)
//   BENCH_MCR_QPS      client-side QPS of MCR's clients (default -1: off, as ctrl.GetConfig() sets;
//                      0: client-go's default 5/s, the file provider's own behaviour)
//   BENCH_APIEXPORT    1: also run rxfleet on its APIExport provider (an APIExport claiming ConfigMaps,
//                      bound in every workspace) as a third column. Default 0. (kcp v0.28.1's virtual
//                      workspace ends a streaming list of claimed ConfigMaps with a 500, "Object 'Kind'
//                      is missing"; the watch then falls back to list-then-watch)
//   BENCH_HTTP1        1: also run rxfleet on the file provider over HTTP/1.1 (`client: { http2: false }`:
//                      keep-alive connections of each cluster's own) as a column beside the default
//                      (one HTTP/2 session shared by every workspace), with its ratio to it. Default 0.
//   BENCH_BUNDLE       0: leave out the column of rxfleet run as the scaffold deploys it, one ES module
//                      bundled by the scaffold's rolldown configuration (bench/peer/bundle-controller.ts).
//                      Default 1.
//   BENCH_BUNDLE_FLAGS Node flag sets for further bundle columns, `;` between sets (e.g.
//                      `--max-semi-space-size=4;--single-threaded-gc`): each runs the same bundle with
//                      those flags, with its ratio to the plain bundle. A `NAME=value` word sets an
//                      environment variable instead (e.g. `MALLOC_ARENA_MAX=2`: glibc's malloc arenas,
//                      8 per core by default). Every bundle column has the environment of the scaffold's
//                      image (its Dockerfile's `ENV` lines). Default none.
//   BENCH_TIMEOUT_S    longest wait for a convergence (default 600)
//   BENCH_PER_CLUSTER  rxfleet's per-cluster concurrency cap (default: rxfleet's, 10 - 1 = 9)
//   BENCH_RXFLEET_OUTPUTS  0: the rxfleet controller does not watch its outputs (then its restart
//                      cannot prove its applies needless, and sends them all). Default 1.
//   BENCH_RXFLEET_NODE_ARGS  Node flags for the rxfleet controllers, space-separated (e.g.
//                      `--cpu-prof --cpu-prof-dir=/tmp/prof`); rxfleet runs as JavaScript on dist/
//   RXFLEET_MCR_PEER_BIN  a prebuilt MCR controller (else built once into ~/.cache/rxfleet/bin)
//   BENCH_MEMORY_LIMIT_MIB  run every controller in a memory cgroup of this many MiB, as a pod's
//                      memory limit does (Node sizes V8's heap from it; Go does not). Needs root.
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { reservePorts } from '../../src/envtest/ports.js';
import { startKcp } from '../../test/support/kcp.js';
import { setupConfigMapExport } from './apiexport-setup.js';
import { bundleController, imageEnv, warmCompileCache } from './bundle-controller.js';
import { compileController } from './compile-controller.js';
import { setupFleet } from './fleet-setup.js';
import { openKube } from './kube.js';
import { ensureMcrBinary } from './mcr-binary.js';
import type { MemoryLimit } from './memory-limit.js';
import { memoryLimit } from './memory-limit.js';
import type { Contender, FleetState, RunFigures } from './measure-run.js';
import { measureRun } from './measure-run.js';
import { trackOutputs } from './outputs.js';
import type { RatioPair } from './report.js';
import { ratioTable, runLine } from './report.js';
import { rxfleetIdle } from './write-count.js';

const W = Number(process.env.BENCH_WORKSPACES ?? 20);
const N = Number(process.env.BENCH_OBJECTS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MCR_QPS = process.env.BENCH_MCR_QPS ?? '-1';
const APIEXPORT = process.env.BENCH_APIEXPORT === '1';
const HTTP1 = process.env.BENCH_HTTP1 === '1';
const BUNDLE = process.env.BENCH_BUNDLE !== '0';
const BUNDLE_FLAGS = (process.env.BENCH_BUNDLE_FLAGS ?? '').split(';').map((f) => f.trim()).filter((f) => f !== '');
const ENV_WORD = /^[A-Z_][A-Z0-9_]*=/;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;
const RXFLEET_NODE_ARGS = (process.env.BENCH_RXFLEET_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const MEMORY_LIMIT_MIB = process.env.BENCH_MEMORY_LIMIT_MIB === undefined ? undefined : Number(process.env.BENCH_MEMORY_LIMIT_MIB);
const HERE = dirname(fileURLToPath(import.meta.url));

const say = (s: string): void => {
  process.stderr.write(`bench:peer: ${s}\n`);
};

// Built before kcp starts: a build competes for the same 2 cores.
const mcrBin = await ensureMcrBinary();
const dir = mkdtempSync(join(tmpdir(), 'rxfleet-peer-'));
say(`work directory ${dir} (controller logs, kubeconfigs)`);
const kcp = await startKcp();
// Rounds measured so far: a failure in a later round (kcp not answering on a loaded machine) still
// prints the table of the complete ones.
const rounds: RunFigures[][] = [];
const loads: number[] = [];
let printTable: (() => void) | undefined;
let limit: MemoryLimit | undefined;
try {
  if (MEMORY_LIMIT_MIB !== undefined) {
    if (!(MEMORY_LIMIT_MIB > 0)) throw new Error(`BENCH_MEMORY_LIMIT_MIB must be a positive number of MiB, got ${process.env.BENCH_MEMORY_LIMIT_MIB ?? ''}`);
    limit = memoryLimit(MEMORY_LIMIT_MIB, `rxfleet-peer-${randomBytes(3).toString('hex')}`);
    say(`every controller runs in the memory cgroup ${limit.path}, limited to ${MEMORY_LIMIT_MIB} MiB`);
  }
  const kube = await openKube(kcp.adminKubeconfigPath);
  const setupStart = performance.now();
  const prefix = `peer-${randomBytes(2).toString('hex')}`;
  const fleet = await setupFleet(kube, kcp.adminKubeconfigPath, dir, { workspaces: W, objects: N, prefix });
  const apiExport = APIEXPORT ? await setupConfigMapExport(kube, kcp.adminKubeconfigPath, dir, fleet, prefix) : undefined;
  say(`${W} workspaces × ${N} inputs set up in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);
  const outputs = trackOutputs(kube, fleet.workspaces);
  const shardAdmin = await openKube(kcp.adminKubeconfigPath, 'shard-base');
  const st: FleetState = { fleet, kube, shardAdmin, outputs, gens: new Map(), nextGen: 1, timeoutMs: TIMEOUT_MS, logDir: dir, serverPort: kcp.ports.secure };
  const mcrLabel = MCR_QPS === '-1' ? 'MCR' : `MCR (qps ${MCR_QPS === '0' ? '5, default' : MCR_QPS})`;
  // rxfleet runs as JavaScript on the built package (dist/), as a deployed controller does;
  // BENCH_RXFLEET_NODE_ARGS adds Node flags (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const pairs: RatioPair[] = [];
  const compiled = compileController(join(HERE, 'rxfleet-controller.ts'), dir);
  const rxfleet = [...RXFLEET_NODE_ARGS, compiled];
  // rxfleet's `run()` logs this line once it is set up, before the provider engages a cluster.
  const readyLine = /"msg":"controller running"/;
  // rxfleet serves its metrics there: after a restart that sends nothing, they tell when it has gone
  // through every key.
  const metricsPort = (await reservePorts(1)).ports[0] ?? 0;
  const watches = W; // rxfleet_watch_synced is one series per cluster and resource, however many watches share it
  const observed = { readyLine, env: { BENCH_METRICS_PORT: String(metricsPort) }, idle: (keys: number) => rxfleetIdle(metricsPort, keys, watches) };
  const contenders: Contender[] = [
    { label: mcrLabel, command: mcrBin, args: ['-kubeconfig-dir', fleet.kubeconfigDir, '-local-kubeconfig', fleet.rootKubeconfig, '-qps', MCR_QPS] },
    { label: 'rxfleet', command: process.execPath, args: [...rxfleet, 'file', fleet.kubeconfigDir], ...observed },
  ];
  if (BUNDLE) {
    const bundle = await bundleController(compiled, dir);
    // The environment the scaffold's image sets (NODE_ENV, NODE_COMPILE_CACHE), and V8's compile cache
    // of the bundle made as its build makes it.
    const image = { ...observed.env, ...imageEnv(), ...warmCompileCache(bundle, dir) };
    contenders.push({ label: 'rxfleet (bundle)', command: process.execPath, args: [...RXFLEET_NODE_ARGS, bundle, 'file', fleet.kubeconfigDir], ...observed, env: image });
    pairs.push({ of: 'rxfleet (bundle)', to: 'rxfleet' });
    for (const flags of BUNDLE_FLAGS) {
      const label = `rxfleet (bundle ${flags})`;
      // `NAME=value` words are environment (over the image's), the others Node flags.
      const words = flags.split(' ').filter((a) => a !== '');
      const env = Object.fromEntries(words.filter((w) => ENV_WORD.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
      const nodeFlags = words.filter((w) => !ENV_WORD.test(w));
      contenders.push({ label, command: process.execPath, args: [...RXFLEET_NODE_ARGS, ...nodeFlags, bundle, 'file', fleet.kubeconfigDir], ...observed, env: { ...image, ...env } });
      pairs.push({ of: label, to: 'rxfleet (bundle)' });
    }
  }
  if (HTTP1) {
    contenders.push({ label: 'rxfleet (HTTP/1.1)', command: process.execPath, args: [...rxfleet, 'file-http1', fleet.kubeconfigDir], ...observed });
    pairs.push({ of: 'rxfleet (HTTP/1.1)', to: 'rxfleet' });
  }
  if (apiExport !== undefined) contenders.push({ label: 'rxfleet (APIExport)', command: process.execPath, args: [...rxfleet, 'apiexport', apiExport.providerKubeconfig, apiExport.exportName], ...observed });
  printTable = (): void => {
    console.log(`\nW = ${W} workspaces × ${N} ConfigMaps, ${rounds.length} rounds (${contenders.map((c) => c.label).join(', ')} alternated), concurrency 10`);
    // The machine may be shared: the figures mean little without it.
    console.log(`load average (1 min) at the end of each run: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}, ${navigator.hardwareConcurrency} cores${limit === undefined ? '' : `, every controller under a ${limit.mib} MiB memory limit`}\n`);
    console.log(ratioTable(mcrLabel, contenders.slice(1).map((c) => c.label), rounds, pairs));
  };
  let runIndex = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const round: RunFigures[] = [];
    // The rxfleet columns run in reverse order every other round, so a drift of the server or the
    // machine over the session does not always favour the same one.
    const order = r % 2 === 1 ? [contenders[0], ...contenders.slice(1).reverse()] : contenders;
    for (const c of order) {
      if (c === undefined) continue;
      const f = await measureRun(st, limit === undefined ? c : limit.wrap(c), ++runIndex);
      const [load1] = loadavg();
      loads.push(load1 ?? NaN);
      say(`run ${runIndex} ${runLine(f)} load1=${(load1 ?? NaN).toFixed(1)}`);
      round.push(f);
    }
    rounds.push(round);
  }
  outputs.stop();
  kube.close();
  shardAdmin.close();
  printTable();
} catch (err) {
  process.stderr.write(`bench:peer: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
  if (rounds.length > 0 && printTable !== undefined) {
    process.stderr.write(`bench:peer: the ${rounds.length} complete round(s) before the failure:\n`);
    printTable();
  }
} finally {
  await kcp.stop();
  limit?.remove();
  // Watches and keep-alive sockets left by a failed run must not keep the process alive.
  if (process.exitCode === 1) process.exit();
}
