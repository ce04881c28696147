// Import cost benchmark: what importing rxfleet's built entry points (dist/, as a user's program
// resolves `rxfleet/...`) costs before any cluster exists. Each sample is a fresh `node` process,
// so nothing is cached between samples; an empty Node process is the baseline. Reports, as the
// median of BENCH_RUNS (default 7) processes: RSS right after the imports, VmHWM (peak RSS, Linux
// only), the time the imports took (from before the first `import()` to after the last) and the CPU
// time they used (user + system: unlike the wall time, barely moved by other load on the machine).
// Run: npm run build && npm run bench:import  (node --import ./bench/register.ts bench/import.ts)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './support.js';

const root = join(import.meta.dirname, '..');
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 7));

/** The entry points each row imports, in order; empty: the baseline. */
const rows: readonly (readonly [string, readonly string[]])[] = [
  ['empty node (baseline)', []],
  ['rxfleet', ['rxfleet']],
  ['rxfleet + providers/file + sinks + operators', ['rxfleet', 'rxfleet/providers/file', 'rxfleet/sinks', 'rxfleet/operators']],
  ['… + providers/kcp', ['rxfleet', 'rxfleet/providers/file', 'rxfleet/sinks', 'rxfleet/operators', 'rxfleet/providers/kcp']],
  ['… + client + runtime + streams', ['rxfleet', 'rxfleet/providers/file', 'rxfleet/sinks', 'rxfleet/operators', 'rxfleet/providers/kcp', 'rxfleet/client', 'rxfleet/runtime', 'rxfleet/streams']],
];

interface Sample {
  readonly rssMiB: number;
  readonly hwmMiB: number;
  readonly ms: number;
  readonly cpuMs: number;
}

// The child's own measurement: `performance.now()` around the imports, then memory. VmHWM comes
// from /proc (absent elsewhere: reported as NaN).
function childCode(specifiers: readonly string[]): string {
  return `
const t0 = performance.now();
const c0 = process.cpuUsage();
for (const s of ${JSON.stringify(specifiers)}) await import(s);
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const rss = process.memoryUsage().rss;
let hwm = NaN;
try {
  const m = /VmHWM:\\s+(\\d+) kB/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'));
  if (m) hwm = Number(m[1]) * 1024;
} catch {}
console.log(JSON.stringify({ rssMiB: rss / 2 ** 20, hwmMiB: hwm / 2 ** 20, ms, cpuMs: (c.user + c.system) / 1000 }));`;
}

function sample(specifiers: readonly string[]): Sample {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', childCode(specifiers)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out) as Sample;
}

if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
console.log(`import cost, median of ${RUNS} fresh processes (node ${process.version}, ${process.platform})\n`);
console.log('| imports | RSS after import | VmHWM | import time | import CPU |');
console.log('|---|---|---|---|---|');
for (const [label, specifiers] of rows) {
  // One unmeasured run first, so the first sample does not pay for a cold file cache.
  sample(specifiers);
  const samples = Array.from({ length: RUNS }, () => sample(specifiers));
  const rss = median(samples.map((x) => x.rssMiB));
  const hwm = median(samples.map((x) => x.hwmMiB));
  const ms = median(samples.map((x) => x.ms));
  const cpuMs = median(samples.map((x) => x.cpuMs));
  const time = (v: number): string => (specifiers.length === 0 ? '—' : `${v.toFixed(0)} ms`);
  console.log(`| ${label} | ${rss.toFixed(1)} MiB | ${Number.isNaN(hwm) ? 'n/a' : `${hwm.toFixed(1)} MiB`} | ${time(ms)} | ${time(cpuMs)} |`);
}
