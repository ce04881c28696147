// A provider's `client` option reaches the clients it builds from kubeconfigs: here the user agent
// its first-contact probe sends to a local server, and the default when the option is absent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterListProvider } from '../../src/providers/clusters/index.js';

const agents: string[] = [];
const server = createServer((req, res) => {
  agents.push(req.headers['user-agent'] ?? '');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ major: '1', minor: '36', gitVersion: 'v1.36.3' }));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => { r(); }));
});

const kubeconfig = (): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    // Plain http needs the kubeconfig to say so (no credentials are sent here).
    clusters: [{ name: 'local', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'anyone', user: {} }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'anyone' } }],
    'current-context': 'local',
  });

async function probedAgent(options: Parameters<typeof clusterListProvider>[1]): Promise<string | undefined> {
  agents.length = 0;
  await firstValueFrom(clusterListProvider([{ name: 'east', kubeconfig: { yaml: kubeconfig() } }], { ...options, probe: true }).pipe(filter((e) => e.type === 'engaged')));
  return agents[0];
}

describe('ContactOptions.client', () => {
  it('should build every kubeconfig cluster with the provider\'s client options', async () => {
    expect(await probedAgent({ client: { userAgent: 'knob-test/1.0' } })).toBe('knob-test/1.0');
  });

  it('should keep the client defaults when the option is absent', async () => {
    expect(await probedAgent({})).toBe('rxfleet');
  });
});
