// Labels and annotations going down as api-syncagent sends them by default (issue 28 item 4): a
// PublishedResource's objects take every label and annotation of the consumer object to the service
// copy, but never kcp's (the workspace annotation, permission-claim labels), kubectl's last applied
// configuration, api-syncagent's own or rxfleet's: those are set by the agent alone, whatever the
// patterns say, so a consumer's value never stands in for a back-reference or the agent's labels.
import { describe, expect, it } from 'vitest';
import { resourceId } from '../../src/client/index.js';
import { clusterName } from '../../src/index.js';
import type { SourceIdentity } from '../../src/sinks/index.js';
import { readBackReference } from '../../src/sinks/index.js';
import { parseSyncConfig } from '../../packages/sync-agent/src/config.js';
import { copyUpToDate, desiredCopy, keyMatches } from '../../packages/sync-agent/src/sync-down.js';
import { database, dbKcp, plan } from './sync-fixture.js';

const src: SourceIdentity = { cluster: clusterName('ws-a'), resource: resourceId(dbKcp), namespace: 'default', name: 'orders', uid: 'u-1' };
const everything = { ...plan, published: { ...plan.published, syncDown: { labels: ['*'], annotations: ['*'] } } };
const labels = { team: 'payments', 'app.kubernetes.io/name': 'orders', 'claimed.internal.apis.kcp.io/abc': 'x', 'syncagent.kcp.io/remote-object-cluster': 'forged', 'rxfleet.dev/source': 'forged', 'sync.rxfleet.dev/agent': 'forged' };
const annotations = { note: 'hello', 'kcp.io/cluster': 'ws-a', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'rxfleet.dev/source-uid': 'someone-else', 'related-resources.syncagent.kcp.io/x': 'y' };
const consumer = { ...database('orders', { size: 1 }, { uid: 'u-1' }), metadata: { name: 'orders', namespace: 'default', uid: 'u-1', labels, annotations } };

describe('sync down: labels and annotations', () => {
  it('a PublishedResource sends every label and annotation down by default, as api-syncagent does', () => {
    const entry = parseSyncConfig({ apiExport: 'x.example.dev', published: [{ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'dbs' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] } } }] }).published[0];
    expect(entry?.syncDown).toEqual({ labels: ['*'], annotations: ['*'] });
  });

  it('kcp, kubectl, api-syncagent and rxfleet keys never go down, whatever the patterns; the back-reference is the agent\'s', () => {
    for (const key of ['kcp.io/cluster', 'claimed.internal.apis.kcp.io/abc', 'syncagent.kcp.io/remote-object-name', 'rxfleet.dev/source', 'sync.rxfleet.dev/agent', 'kubectl.kubernetes.io/last-applied-configuration']) {
      expect([key, keyMatches(['*', key], key)]).toEqual([key, false]);
    }
    const copy = desiredCopy(everything, consumer, { namespace: 'ws-a', name: 'x' }, src, 'ws-a');
    expect(copy.metadata.labels).toMatchObject({ team: 'payments', 'app.kubernetes.io/name': 'orders', 'sync.rxfleet.dev/agent': 'rxfleet-sync' });
    expect(Object.keys(copy.metadata.labels ?? {}).filter((k) => k.includes('kcp.io'))).toEqual([]);
    expect(copy.metadata.labels?.['rxfleet.dev/source']).not.toBe('forged');
    expect(copy.metadata.annotations?.note).toBe('hello');
    expect(Object.keys(copy.metadata.annotations ?? {}).filter((k) => k.includes('kcp.io') || k.startsWith('kubectl.'))).toEqual([]);
    expect(readBackReference(copy)).toMatchObject({ name: 'orders', uid: 'u-1' });
    // The copy as desired is up to date, labels the service side adds under the same `*` too (no apply
    // for them: the synced-keys record tells them apart); a label the consumer drops is a change.
    expect(copy.metadata.annotations?.['sync.rxfleet.dev/synced-keys']).toBe('labels=app.kubernetes.io/name,team;annotations=note');
    expect(copyUpToDate(everything, { ...copy, metadata: { ...copy.metadata, labels: { ...copy.metadata.labels, 'operator.example.dev/x': 'y' } } }, copy)).toBe(true);
    expect(copyUpToDate(everything, copy, copy)).toBe(true);
    const dropped = desiredCopy(everything, { ...consumer, metadata: { ...consumer.metadata, labels: { team: 'payments' } } }, { namespace: 'ws-a', name: 'x' }, src, 'ws-a');
    expect(copyUpToDate(everything, copy, dropped)).toBe(false);
  });
});
