// What a controller process cost, read from /proc the way `top` and `ps` do: peak resident set
// (VmHWM), CPU time (utime + stime) and open TCP connections to one port, for processes the driver
// started itself.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** TCP state ESTABLISHED in /proc/net/tcp. */
const ESTABLISHED = '01';

/**
 * How many established TCP connections `pid` holds to local port `port` (e.g. kcp's): its socket
 * file descriptors matched by inode against /proc/<pid>/net/tcp and tcp6. Shows which transport a
 * controller really used: one shared HTTP/2 session or a connection per cluster and watch.
 *
 * @example
 * const n = serverConnections(child.pid, kcp.ports.secure);
 */
export function serverConnections(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(linkTarget(`/proc/${pid}/fd/${fd}`));
    if (m?.[1] !== undefined) inodes.add(m[1]);
  }
  const remotePort = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const table of ['tcp', 'tcp6']) {
    // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [, , remote, state, , , , , , inode] = cols;
      if (state === ESTABLISHED && remote?.endsWith(`:${remotePort}`) === true && inode !== undefined && inodes.has(inode)) n++;
    }
  }
  return n;
}

/** Where a /proc fd link points, or '' if the descriptor closed between the listing and the read. */
function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
