// The ports envtest picks from: outside the kernel's ephemeral range, from which the kernel chooses
// the port of anything that binds port 0 or connects out, and so could give away a port envtest
// found free before its server bound it.
import { readFileSync } from 'node:fs';

/**
 * An inclusive range of TCP ports.
 *
 * @example
 * ```ts
 * const r: PortRange = { from: 10_000, to: 32_767 };
 * ```
 */
export interface PortRange {
  readonly from: number;
  readonly to: number;
}

/** Below this, ports belong to well-known services more often than not. */
const LOWEST = 10_000;
/** A range narrower than this is not worth picking from at random. */
const ENOUGH = 1_000;

/**
 * The kernel's ephemeral range: Linux's `net.ipv4.ip_local_port_range`, else the IANA dynamic
 * range (macOS and the BSDs use it by default).
 *
 * @example
 * ```ts
 * ephemeralRange(); // { from: 32768, to: 60999 } on a default Linux
 * ```
 */
export function ephemeralRange(read: (path: string) => string = (p) => readFileSync(p, 'utf8')): PortRange {
  try {
    const [from, to] = read('/proc/sys/net/ipv4/ip_local_port_range').trim().split(/\s+/).map(Number);
    if (from !== undefined && to !== undefined && Number.isInteger(from) && Number.isInteger(to) && from <= to) return { from, to };
  } catch {
    // not Linux
  }
  return { from: 49_152, to: 65_535 };
}

/**
 * Where envtest picks its ports: from 10000 up to the ephemeral range, or above it when the space
 * below is too small; the whole unprivileged range only when the ephemeral range leaves no room
 * (then a port-0 neighbour could still take a port before the server binds it).
 *
 * @example
 * ```ts
 * portRange({ from: 32768, to: 60999 }); // { from: 10000, to: 32767 }
 * ```
 */
export function portRange(ephemeral: PortRange = ephemeralRange()): PortRange {
  if (ephemeral.from - LOWEST >= ENOUGH) return { from: LOWEST, to: ephemeral.from - 1 };
  if (65_535 - ephemeral.to >= ENOUGH) return { from: ephemeral.to + 1, to: 65_535 };
  return { from: 1_024, to: 65_535 };
}
