// Ports reserved on 127.0.0.1 (a port nothing listens on: src/envtest/ports.ts, as envtest's servers get
// theirs); and a server started on a port the kernel chooses.
import type { Server } from 'node:net';
export type { PortReservation } from '../../src/envtest/ports.js';
export { reservePorts } from '../../src/envtest/ports.js';

/** Starts `server` on a free port of 127.0.0.1 and resolves with that port (rejects on a listen error). */
export async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}
