// The peer benchmark's table: per measure, each contender's median over its runs and the ratio
// contender ÷ baseline from adjacent pairs (run k of each), as a range and a median, and any other
// pair of contenders asked for (e.g. rxfleet's HTTP/1.1 ÷ its HTTP/2).
import { median } from '../support.js';
import type { RunFigures } from './measure-run.js';

type Measure = Exclude<keyof RunFigures, 'label'>;

const MEASURES: readonly { readonly key: Measure; readonly name: string; readonly digits: number }[] = [
  { key: 'convergenceMs', name: 'initial convergence (ms)', digits: 0 },
  { key: 'firstWriteMs', name: 'start → first write (ms)', digits: 0 },
  { key: 'waveThroughputPerS', name: 'wave throughput (objects/s, higher is better)', digits: 0 },
  { key: 'waveP50Ms', name: 'wave latency p50 (ms)', digits: 0 },
  { key: 'waveP99Ms', name: 'wave latency p99 (ms)', digits: 0 },
  { key: 'waveFirstWorkspaceP50Ms', name: 'wave p50 of the workspace updated first (ms)', digits: 0 },
  { key: 'waveFirstWorkspaceP99Ms', name: 'wave p99 of the workspace updated first (ms)', digits: 0 },
  { key: 'waveLastWorkspaceP50Ms', name: 'wave p50 of the workspace updated last (ms)', digits: 0 },
  { key: 'waveLastWorkspaceP99Ms', name: 'wave p99 of the workspace updated last (ms)', digits: 0 },
  { key: 'peakRssMiB', name: 'peak RSS (MiB, VmHWM)', digits: 1 },
  { key: 'setupRssMiB', name: 'RSS after import and set-up (MiB, VmHWM at "controller running")', digits: 1 },
  { key: 'cpuMsPerObject', name: 'CPU per object (ms, utime+stime)', digits: 2 },
  { key: 'idleP50Ms', name: 'idle single-object latency p50 (ms)', digits: 1 },
  { key: 'connections', name: 'TCP connections to kcp at the end', digits: 0 },
  { key: 'appliesInitial', name: 'applies sent: initial convergence', digits: 0 },
  { key: 'appliesWave', name: 'applies sent: update wave', digits: 0 },
  { key: 'appliesIdle', name: 'applies sent: idle updates', digits: 0 },
  { key: 'appliesRestart', name: 'applies sent: restart over the converged fleet', digits: 0 },
];

/** An extra ratio column: `of` ÷ `to`, from the runs of one round. */
export interface RatioPair {
  readonly of: string;
  readonly to: string;
}

/**
 * A markdown table: rows are measures; columns the baseline's and each contender's medians, then
 * each contender's ratio to the baseline from adjacent pairs (`min–max (median)`), then the ratios
 * of `pairs`, also per round.
 *
 * @example
 * console.log(ratioTable('MCR', ['rxfleet', 'rxfleet (HTTP/1.1)'], rounds, [{ of: 'rxfleet (HTTP/1.1)', to: 'rxfleet' }]));
 */
export function ratioTable(baseline: string, contenders: readonly string[], rounds: readonly (readonly RunFigures[])[], pairs: readonly RatioPair[] = []): string {
  const of = (label: string): RunFigures[] => rounds.flatMap((r) => r.filter((f) => f.label === label));
  const columns = [...contenders.map((c) => ({ of: c, to: baseline })), ...pairs];
  const head = ['measure', baseline, ...contenders, ...columns.map((p) => `${p.of} ÷ ${p.to}`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const m of MEASURES) {
    const cells = [m.name, ...[baseline, ...contenders].map((c) => figure(median(of(c).map((f) => f[m.key])), m.digits))];
    for (const p of columns) {
      const ratios = rounds.flatMap((r) => {
        const b = r.find((f) => f.label === p.to);
        const x = r.find((f) => f.label === p.of);
        const ratio = b === undefined || x === undefined ? NaN : x[m.key] / b[m.key];
        return Number.isFinite(ratio) ? [ratio] : [];
      });
      cells.push(ratios.length === 0 ? '–' : `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× (${median(ratios).toFixed(2)})`);
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** A figure, or '–' where a contender has none (e.g. no start-up line to read its set-up RSS at). */
function figure(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

/**
 * One line per run, for the log: every figure of it.
 *
 * @example
 * console.log(runLine(figures));
 */
export function runLine(f: RunFigures): string {
  return `${f.label}: ${MEASURES.map((m) => `${m.key}=${figure(f[m.key], m.digits)}`).join(' ')}`;
}
