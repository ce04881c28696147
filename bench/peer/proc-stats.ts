// What a controller process cost, read from /proc the way `top` and `ps` do: peak resident set
// (VmHWM) and CPU time (utime + stime), for processes the driver started itself.
import { readFileSync } from 'node:fs';

/** Peak RSS and CPU so far of one process. */
export interface ProcStats {
  /** VmHWM, bytes. */
  readonly peakRssBytes: number;
  /** utime + stime, ms. */
  readonly cpuMs: number;
}

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux the project runs on. */
const CLOCK_TICKS_PER_S = 100;

/**
 * Reads VmHWM and utime+stime of `pid` (must be alive, e.g. before it is stopped).
 *
 * @example
 * const { peakRssBytes, cpuMs } = procStats(child.pid);
 */
export function procStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const hwm = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (hwm?.[1] === undefined) throw new Error(`/proc/${pid}/status: no VmHWM`);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat; `rest` starts at field 3.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`/proc/${pid}/stat: cannot read utime/stime`);
  return { peakRssBytes: Number(hwm[1]) * 1024, cpuMs: ((utime + stime) * 1000) / CLOCK_TICKS_PER_S };
}
