// envtest's ports (src/envtest/ports.ts): taken outside the kernel's ephemeral range, so nothing
// binding port 0 or connecting out is given one while a server is down; claimed by a lock file
// that other envtests respect for the life of a handle; never one something listens on.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ephemeralRange, portRange } from '../../src/envtest/port-range.js';
import type { PortReservation } from '../../src/envtest/ports.js';
import { reservePorts } from '../../src/envtest/ports.js';
import { listenLocal } from '../support/ports.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function lockDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-ports-test-'));
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

async function reserve(count: number, opts: Parameters<typeof reservePorts>[1] = {}): Promise<PortReservation> {
  const r = await reservePorts(count, opts);
  cleanups.push(() => {
    r.release();
  });
  return r;
}

/** A port of the default range that nothing listens on, claimed in a directory of its own. */
async function onePort(): Promise<number> {
  const [port] = (await reserve(1, { lockDir: lockDir() })).ports;
  if (port === undefined) throw new Error('no port');
  return port;
}

describe('portRange', () => {
  it('should take the ports below the ephemeral range, else above it, else all of them', () => {
    expect(portRange({ from: 32_768, to: 60_999 })).toEqual({ from: 10_000, to: 32_767 });
    expect(portRange({ from: 10_500, to: 60_999 })).toEqual({ from: 61_000, to: 65_535 });
    expect(portRange({ from: 1_024, to: 65_535 })).toEqual({ from: 1_024, to: 65_535 });
  });

  it("should read Linux's ip_local_port_range, and assume the IANA dynamic range elsewhere", () => {
    expect(ephemeralRange(() => '32768\t60999\n')).toEqual({ from: 32_768, to: 60_999 });
    expect(
      ephemeralRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual({ from: 49_152, to: 65_535 });
  });

  it('should hold what this kernel does: a port-0 listener is given a port of the ephemeral range, never one of ours', async () => {
    const ephemeral = ephemeralRange();
    const ours = portRange(ephemeral);
    for (let i = 0; i < 20; i++) {
      const server = createServer();
      const port = await listenLocal(server);
      await new Promise((r) => server.close(r));
      expect(port).toBeGreaterThanOrEqual(ephemeral.from);
      expect(port).toBeLessThanOrEqual(ephemeral.to);
      expect(port < ours.from || port > ours.to).toBe(true);
    }
  });
});

describe('reservePorts', () => {
  it('should claim distinct ports of the range with a lock file each, until release', async () => {
    const dir = lockDir();
    const range = portRange();
    const r = await reserve(3, { lockDir: dir });
    expect(new Set(r.ports).size).toBe(3);
    for (const p of r.ports) {
      expect(p).toBeGreaterThanOrEqual(range.from);
      expect(p).toBeLessThanOrEqual(range.to);
      expect(readFileSync(join(dir, `port-${p}`), 'utf8')).toBe(`${process.pid}\n`);
    }
    r.release();
    r.release();
    for (const p of r.ports) expect(existsSync(join(dir, `port-${p}`))).toBe(false);
  });

  it('should not hand out a port another live envtest holds, until that one releases it', async () => {
    const port = await onePort();
    const dir = lockDir();
    const only = { lockDir: dir, range: { from: port, to: port }, attempts: 5 };
    const first = await reserve(1, only);
    expect(first.ports).toEqual([port]);
    await expect(reservePorts(1, only)).rejects.toThrow(`envtest: no free port in ${port}-${port} after 5 tries (locks in ${dir})`);
    // Held by another process (the one that started this test run), it is not taken either.
    first.release();
    writeFileSync(join(dir, `port-${port}`), `${process.ppid}\n`);
    await expect(reservePorts(1, only)).rejects.toThrow(/no free port/);
  });

  it('should take over the lock of a process that ended without releasing it', async () => {
    const port = await onePort();
    const dir = lockDir();
    const ended = spawnSync('true').pid;
    writeFileSync(join(dir, `port-${port}`), `${ended}\n`);
    const r = await reserve(1, { lockDir: dir, range: { from: port, to: port }, attempts: 5 });
    expect(r.ports).toEqual([port]);
    expect(readFileSync(join(dir, `port-${port}`), 'utf8')).toBe(`${process.pid}\n`);
  });

  it('should not hand out a port something already listens on, and leave no lock for it', async () => {
    const port = await onePort();
    const dir = lockDir();
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((r) => {
      server.close(() => {
        r();
      });
    }));
    await expect(reservePorts(1, { lockDir: dir, range: { from: port, to: port }, attempts: 3 })).rejects.toThrow(/no free port/);
    expect(existsSync(join(dir, `port-${port}`))).toBe(false);
  });
});
