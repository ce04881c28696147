// Reads V8 CPU profiles (`node --cpu-prof`, e.g. from `BENCH_RXFLEET_NODE_ARGS='--cpu-prof
// --cpu-prof-dir=/tmp/prof' npm run bench:peer`) and prints where the main thread's time went: self
// time by area (rxfleet's folders, rxjs, Node's HTTP/2 and streams, GC, idle) and the top frames by
// self time, each per reconciled object when BENCH_OBJECTS_RECONCILED is given (the driver's count:
// 2 × inputs + 10 idle updates per run).
//
// Run: node bench/peer/profile-summary.ts /tmp/prof/*.cpuprofile
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The area a frame belongs to, from its script's URL. */
function area(f: CallFrame): string {
  const { url, functionName } = f;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url.includes('http2') ? 'node:http2' : url.includes('stream') ? 'node:streams' : url.includes('timers') ? 'node:timers' : 'node:other';
  const src = /\/dist\/([a-z-]+)\//.exec(url) ?? /\/src\/([a-z-]+)\//.exec(url);
  if (url.includes('/node_modules/')) return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? 'node_modules';
  if (src?.[1] !== undefined) return `rxfleet/${src[1]}`;
  return url.replace(/^.*\//, '');
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node bench/peer/profile-summary.ts <file.cpuprofile>...\n');
  process.exit(2);
}
const objects = Number(process.env.BENCH_OBJECTS_RECONCILED ?? NaN);
const TOP = Number(process.env.BENCH_TOP ?? 25);
for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const areas = new Map<string, number>();
  const frames = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const f = byId.get(id)?.callFrame;
    if (f === undefined) continue;
    const a = area(f);
    areas.set(a, (areas.get(a) ?? 0) + us);
    if (a !== '(idle)') busy += us;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    frames.set(name, (frames.get(name) ?? 0) + us);
  }
  const per = (us: number): string => (Number.isFinite(objects) ? ` ${(us / objects).toFixed(1)} µs/object` : '');
  console.log(`\n${file}: ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s profiled, main thread busy ${(busy / 1e3).toFixed(0)} ms${per(busy)}`);
  console.log('\nself time by area:');
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1])) if (a !== '(idle)') console.log(`  ${(us / 1e3).toFixed(1).padStart(8)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%${per(us)}  ${a}`);
  console.log(`\ntop ${TOP} frames by self time:`);
  for (const [n, us] of [...frames].sort((x, y) => y[1] - x[1]).filter(([n]) => !n.startsWith('(idle)')).slice(0, TOP)) {
    console.log(`  ${(us / 1e3).toFixed(1).padStart(8)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%${per(us)}  ${n}`);
  }
}
