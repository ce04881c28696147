// A memory limit for the contenders, as a pod's `resources.limits.memory` sets one: a memory cgroup
// (v2 `memory.max`, or v1 `memory.limit_in_bytes`) that each controller process joins before it
// execs, so the runtime sees the limit from its first instruction. Node sizes V8's heap from it
// (`process.constrainedMemory()`); Go's runtime does not (no GOMEMLIMIT is set), so MCR is measured
// as deployed too. Needs root and a writable cgroup file system; says so plainly when it cannot.
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Contender } from './measure-run.js';

/** A created cgroup with a memory limit, and how to run a contender inside it. */
export interface MemoryLimit {
  readonly mib: number;
  readonly path: string;
  /** The same contender, joining the cgroup before it execs (its pid, CPU and RSS stay its own). */
  wrap(c: Contender): Contender;
  /** Removes the cgroup (every contender has exited by then). */
  remove(): void;
}

/**
 * Creates a memory cgroup limited to `mib` MiB.
 *
 * @example
 * const limit = memoryLimit(256, 'rxfleet-peer-ab12');
 * const c = limit.wrap({ label: 'MCR', command: bin, args });
 */
export function memoryLimit(mib: number, name: string): MemoryLimit {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const root = v2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
  if (!existsSync(root)) throw new Error(`BENCH_MEMORY_LIMIT_MIB: no memory cgroup file system at ${root}`);
  const path = join(root, name);
  try {
    mkdirSync(path);
    writeFileSync(join(path, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(mib * 1024 * 1024));
  } catch (err) {
    throw new Error(`BENCH_MEMORY_LIMIT_MIB: cannot create the memory cgroup ${path} (root and a writable cgroup file system are needed): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const procs = join(path, 'cgroup.procs');
  return {
    mib,
    path,
    wrap: (c) => ({ ...c, command: 'bash', args: ['-c', `echo $$ > ${procs} && exec "$0" "$@"`, c.command, ...c.args] }),
    remove: () => {
      try {
        rmdirSync(path);
      } catch {
        // A process still inside (a killed run's child): the empty group is harmless and named.
        process.stderr.write(`bench:peer: could not remove the cgroup ${path}\n`);
      }
    },
  };
}
