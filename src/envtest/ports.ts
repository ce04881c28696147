// Free TCP ports on 127.0.0.1: listen on port 0, read the port the kernel chose, close.
import { createServer } from 'node:net';
import type { Server } from 'node:net';

function listenOnZero(): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      resolvePromise(server);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolvePromise) => {
    server.close(() => {
      resolvePromise();
    });
  });
}

function portOf(server: Server): number {
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('listening server has no TCP address');
  return addr.port;
}

/**
 * `count` distinct free ports on 127.0.0.1. All are held open until all are known, so they
 * differ from each other; another process may still take one before the server binds it.
 *
 * @example
 * ```ts
 * const [secure, etcdClient, etcdPeer] = await freePorts(3);
 * ```
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnZero());
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(close));
  }
}

/**
 * One free port on 127.0.0.1.
 *
 * @example
 * ```ts
 * const probePort = await freePort();
 * ```
 */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('no port');
  return port;
}
