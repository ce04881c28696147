// How many TCP connections this process holds to a server port, read from Linux's /proc: for the
// kcp leak test (connections back to baseline) and bench:scale (connections per N).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Established TCP connections of this process to `port` (its socket inodes from /proc/self/fd,
 * matched in /proc/self/net/tcp and tcp6).
 *
 * @example
 * ```ts
 * const before = connectionsTo(6443);
 * ```
 * @param port - the server's port.
 * @returns the count.
 */
export function connectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m?.[1] !== undefined) inodes.add(m[1]);
    } catch {
      // The fd closed while listing.
    }
  }
  let n = 0;
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      const remote = f[2]?.split(':')[1];
      // f[3] is the state (01: established), f[9] the socket's inode.
      if (remote !== undefined && Number.parseInt(remote, 16) === port && f[3] === '01' && inodes.has(f[9] ?? '')) n++;
    }
  }
  return n;
}
