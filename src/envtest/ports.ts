// Ports for the servers envtest starts, reserved for the life of a handle. Between the moment a
// port is found free and the moment a server binds it (seconds for kcp), and again while a server
// restarts, two kinds of neighbour could take it:
// - the kernel, which hands any free port of its ephemeral range to whoever binds port 0 (a test's
//   HTTP server, a proxy) or connects out. envtest takes its ports below (or above) that range,
//   where the kernel hands out nothing;
// - another envtest (another test worker or process) choosing the same port. Each port is claimed
//   by a lock file under `<cache dir>/ports` (as controller-runtime's envtest does) that every
//   envtest respects, held until the handle stops; a lock whose process is gone is taken over.
// A port is also bound once when claimed, to check that nothing listens on it already.
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cacheDir } from './binaries.js';
import { portRange } from './port-range.js';
import type { PortRange } from './port-range.js';

/**
 * Ports claimed by {@link reservePorts}, until `release()`.
 *
 * @example
 * ```ts
 * const held = await reservePorts(3);
 * try { start(held.ports); } finally { held.release(); }
 * ```
 */
export interface PortReservation {
  /** Distinct ports on 127.0.0.1, nothing listening on them when claimed. */
  readonly ports: readonly number[];
  /** Removes the lock files: other envtests may take the ports again. Idempotent. */
  release(): void;
}

/**
 * Where {@link reservePorts} keeps its locks and which ports it picks from.
 *
 * @example
 * ```ts
 * const opts: ReservePortsOptions = { lockDir: '/tmp/ports', range: { from: 20_000, to: 20_999 } };
 * ```
 */
export interface ReservePortsOptions {
  /** Default `<cache dir>/ports` (`~/.cache/rxfleet/ports`, or under `RXFLEET_CACHE_DIR`). */
  readonly lockDir?: string;
  /** Default: outside the kernel's ephemeral range (see port-range.ts). */
  readonly range?: PortRange;
  /** Candidates tried before giving up (default 500). */
  readonly attempts?: number;
}

/** Lock files this process holds, removed when it exits however it ends. */
const held = new Set<string>();
let exitHookInstalled = false;
const swept = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: unknown) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes `lock` if the process that wrote it is gone (read again just before, so a fresh claim survives). */
function takeOverIfStale(lock: string): void {
  const pid = ownerOf(lock);
  if (pid === undefined || alive(pid) || ownerOf(lock) !== pid) return;
  try {
    unlinkSync(lock);
  } catch {
    // another envtest took it over first
  }
}

/** Once per directory and process: the locks left by processes that ended without releasing. */
function sweep(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  for (const name of readdirSync(dir)) if (name.startsWith('port-')) takeOverIfStale(join(dir, name));
}

function claim(lock: string): boolean {
  try {
    writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  }
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const l of held) unlinkQuietly(l);
    });
  }
  return true;
}

function unlinkQuietly(lock: string): void {
  held.delete(lock);
  try {
    if (ownerOf(lock) === process.pid) unlinkSync(lock);
  } catch {
    // already gone
  }
}

/** True when `port` can be bound on 127.0.0.1 now (nothing listens on it, on that address or all). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.unref();
    server.once('error', () => {
      resolvePromise(false);
    });
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      server.close(() => {
        resolvePromise(true);
      });
    });
  });
}

/**
 * Claims `count` distinct ports on 127.0.0.1 for a server about to start, held until `release()`
 * (or this process's exit). Picked at random outside the kernel's ephemeral range, so that nothing
 * binding port 0 or connecting out is given one; claimed by a lock file that every envtest
 * respects; checked free by binding each once.
 *
 * @example
 * ```ts
 * const held = await reservePorts(3);
 * const [secure, etcdClient, etcdPeer] = held.ports;
 * // ... start the servers; after they have stopped:
 * held.release();
 * ```
 */
export async function reservePorts(count: number, opts: ReservePortsOptions = {}): Promise<PortReservation> {
  const dir = opts.lockDir ?? join(cacheDir(), 'ports');
  const range = opts.range ?? portRange();
  const attempts = opts.attempts ?? 500;
  mkdirSync(dir, { recursive: true });
  sweep(dir);
  const locks: string[] = [];
  const ports: number[] = [];
  const release = (): void => {
    for (const l of locks.splice(0)) unlinkQuietly(l);
  };
  try {
    for (let tried = 0; ports.length < count; tried++) {
      if (tried >= attempts) throw new Error(`envtest: no free port in ${range.from}-${range.to} after ${attempts} tries (locks in ${dir})`);
      const port = range.from + Math.floor(Math.random() * (range.to - range.from + 1));
      const lock = join(dir, `port-${port}`);
      if (!claim(lock)) {
        takeOverIfStale(lock);
        if (!claim(lock)) continue;
      }
      if (await bindable(port)) {
        locks.push(lock);
        ports.push(port);
      } else {
        unlinkQuietly(lock);
      }
    }
  } catch (err: unknown) {
    release();
    throw err;
  }
  return { ports, release };
}
