// What the client's apply puts on the wire: the desired fields with apiVersion and kind filled in,
// never managedFields (the server refuses an apply that carries them), the caller's object
// untouched, and the query in the form encoding.
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { HttpRequest, Transport } from '../../src/client/index.js';
import { clientOver } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, configMaps } from '../../src/index.js';

function recordingTransport(): { sent: HttpRequest[]; transport: Transport } {
  const sent: HttpRequest[] = [];
  const transport: Transport = {
    cluster: clusterName('east'),
    server: 'https://fake.invalid',
    request: (req) => {
      sent.push(req);
      return Promise.resolve(E.right({ status: 200, body: {} }));
    },
    lines: () => EMPTY,
    close: () => undefined,
  };
  return { sent, transport };
}

describe('the client’s apply', () => {
  it('sends the desired fields with apiVersion and kind, and its field manager in the query', async () => {
    const { sent, transport } = recordingTransport();
    await clientOver(transport).apply(configMaps, { metadata: { name: 'a', namespace: 'default', labels: { app: 'web' } }, data: { k: 'v' } }, { fieldManager: 'ctl', force: true });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.method).toBe('PATCH');
    expect(sent[0]?.contentType).toBe('application/apply-patch+yaml');
    expect(sent[0]?.path).toBe('/api/v1/namespaces/default/configmaps/a?fieldManager=ctl&force=true');
    expect(JSON.parse(sent[0]?.body ?? 'null')).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', labels: { app: 'web' } }, data: { k: 'v' } });
  });

  it('leaves managedFields out of the body, and the caller’s object as it was', async () => {
    const { sent, transport } = recordingTransport();
    const desired = {
      metadata: { name: 'a', namespace: 'default', resourceVersion: '7', managedFields: [{ manager: 'other', operation: 'Update' }] },
      data: { k: 'v' },
    };
    await clientOver(transport).apply(configMaps, desired, { fieldManager: 'ctl' });
    expect(JSON.parse(sent[0]?.body ?? 'null')).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '7' }, data: { k: 'v' } });
    expect(desired.metadata.managedFields).toEqual([{ manager: 'other', operation: 'Update' }]);
  });
});
