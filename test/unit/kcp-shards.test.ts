// A failing virtual-workspace endpoint is reported naming its URL and the shard that publishes it:
// the shard is the one whose spec.virtualWorkspaceURL the URL starts with; a lookup that cannot
// say is reported as such; reports keep their order while a lookup is under way, and nothing is
// said for an endpoint that has gone.
import { describe, expect, it } from 'vitest';
import type { ReportInput } from '../../src/providers/internal/report.js';
import type { ShardNamer } from '../../src/providers/kcp/shards.js';
import { endpointReporter, shardOfUrl } from '../../src/providers/kcp/shards.js';
import { clusterName } from '../../src/index.js';

const URL1 = 'https://10.0.0.7:6443/services/apiexport/2x9k/widgets';
const shards = { items: [{ metadata: { name: 'root' }, spec: { virtualWorkspaceURL: 'https://10.0.0.6:6443' } }, { metadata: { name: 'shard-1' }, spec: { virtualWorkspaceURL: 'https://10.0.0.7:6443/' } }] };
const failing: ReportInput = { type: 'source', state: 'failing', management: clusterName(`${URL1}/clusters/*`), resource: 'apibindings.apis.kcp.io', error: 'ClusterUnreachable', reason: 'connect ECONNREFUSED' };
const recovered: ReportInput = { type: 'source', state: 'recovered', management: clusterName(`${URL1}/clusters/*`), resource: 'apibindings.apis.kcp.io', reason: 'works again' };

function deferredNamer(): { readonly namer: ShardNamer; readonly answer: (text: string) => void } {
  let answer: (text: string) => void = () => undefined;
  const pending = new Promise<string>((resolve) => {
    answer = resolve;
  });
  return {
    namer: { describe: () => pending, close: () => undefined },
    answer: (t) => {
      answer(t);
    },
  };
}

describe('shardOfUrl', () => {
  it('names the shard whose virtual-workspace URL the endpoint starts with, and no other', () => {
    expect(shardOfUrl(shards, URL1)).toBe('shard-1');
    expect(shardOfUrl(shards, 'https://10.0.0.6:6443/services/apiexport/2x9k/widgets')).toBe('root');
    // A port that merely starts the same is another server.
    expect(shardOfUrl(shards, 'https://10.0.0.7:64430/services/apiexport/2x9k/widgets')).toBeUndefined();
    expect(shardOfUrl({}, URL1)).toBeUndefined();
  });
});

describe('endpointReporter', () => {
  it('says which endpoint, published by which shard, cannot be reached, in order with the reports after it', async () => {
    const said: ReportInput[] = [];
    const { namer, answer } = deferredNamer();
    const say = endpointReporter(URL1, (r) => said.push(r), namer, () => false);
    say(failing);
    say(recovered);
    expect(said).toEqual([]);
    answer('shard shard-1');
    await new Promise((r) => setImmediate(r));
    expect(said.map((r) => r.type === 'source' && r.state)).toEqual(['failing', 'recovered']);
    const first = said[0];
    expect(first?.type === 'source' && first.reason).toBe(
      `virtual-workspace endpoint ${URL1}, published by shard shard-1 in the endpoint slice, cannot be reached from this controller (is it an address only the shards can reach?): connect ECONNREFUSED`,
    );
    // With no lookup under way, a report is said at once.
    say(recovered);
    expect(said).toHaveLength(3);
  });

  it('says nothing for an endpoint closed before its shard was named', async () => {
    const said: ReportInput[] = [];
    const { namer, answer } = deferredNamer();
    let closed = false;
    const say = endpointReporter(URL1, (r) => said.push(r), namer, () => closed);
    say(failing);
    closed = true;
    answer('shard shard-1');
    await new Promise((r) => setImmediate(r));
    expect(said).toEqual([]);
  });
});
