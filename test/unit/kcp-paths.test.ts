// Path resolution and finishing initialization against fake clients: retries, fallbacks, conflicts;
// and how a provider names its workspaces (logical name, path, or the logical name with an error).
import { describe, expect, it } from 'vitest';
import { lastValueFrom } from 'rxjs';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, KubeError } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { ReportInput } from '../../src/providers/internal/report.js';
import type { LogicalCluster } from '../../src/providers/kcp/index.js';
import { finishInitialization, pathResolver } from '../../src/providers/kcp/index.js';
import { workspaceNamer } from '../../src/providers/kcp/paths.js';

const quick = { attempts: 3, backoff: { initialMs: 1, factor: 1, maxMs: 1, resetAfterMs: 1 } };
const lc = (path: string | undefined, initializers: string[] = [], rv = '1'): LogicalCluster => ({
  metadata: { name: 'cluster', resourceVersion: rv, annotations: path === undefined ? {} : { 'kcp.io/path': path } },
  status: { initializers },
});

function fakeFront(answers: (E.Either<KubeError, unknown>)[]): { client: ClusterClient; calls: string[] } {
  const calls: string[] = [];
  const client = {
    raw: (req: { path: string }) => {
      calls.push(req.path);
      return Promise.resolve(answers.shift() ?? E.left(kubeError('Transient', clusterName('front'), 'no more answers')));
    },
  } as unknown as ClusterClient;
  return { client, calls };
}

describe('pathResolver', () => {
  const logical = clusterName('2x9k');
  it('should read the path from the LogicalCluster, retrying transient failures', async () => {
    const { client, calls } = fakeFront([E.left(kubeError('Transient', logical, 'x')), E.left(kubeError('NotFound', logical, 'x')), E.right(lc('root:org:a'))]);
    expect(await lastValueFrom(pathResolver(client, quick)(logical))).toEqual(E.right('root:org:a'));
    expect(calls).toEqual(Array(3).fill('/clusters/2x9k/apis/core.kcp.io/v1alpha1/logicalclusters/cluster'));
  });

  it('should give up with the error after its attempts, and at once when refused', async () => {
    const { client } = fakeFront([]);
    const r = await lastValueFrom(pathResolver(client, quick)(logical));
    expect(E.isLeft(r) && r.left.type).toBe('Transient');
    const refused = fakeFront([E.left(kubeError('Forbidden', logical, 'no'))]);
    const f = await lastValueFrom(pathResolver(refused.client, quick)(logical));
    expect(E.isLeft(f) && f.left.type).toBe('Forbidden');
    expect(refused.calls).toHaveLength(1);
  });

  it('should use a kcp.io/path annotation on the hint without asking the server', async () => {
    const { client, calls } = fakeFront([]);
    expect(await lastValueFrom(pathResolver(client, quick)(logical, lc('root:b')))).toEqual(E.right('root:b'));
    expect(calls).toEqual([]);
  });
});

describe('finishInitialization', () => {
  function fakeCluster(reads: LogicalCluster[], patches: (E.Either<KubeError, LogicalCluster>)[]): { cluster: Cluster; sent: unknown[] } {
    const sent: unknown[] = [];
    const client = {
      get: () => Promise.resolve(E.right(reads.shift() ?? lc(undefined))),
      patch: (_r: unknown, _n: string, body: unknown) => {
        sent.push(body);
        return Promise.resolve(patches.shift() ?? E.right(lc(undefined)));
      },
    } as unknown as ClusterClient;
    return { cluster: { name: clusterName('root:a'), client }, sent };
  }

  it('should remove only its initializer, with the resourceVersion read, retrying a conflict', async () => {
    const { cluster, sent } = fakeCluster([lc('root:a', ['x:t', 'system:apibindings'], '5'), lc('root:a', ['x:t'], '6')], [E.left(kubeError('Conflict', clusterName('root:a'), 'stale')), E.right(lc('root:a', [], '7'))]);
    const r = await finishInitialization(cluster, 'x:t');
    expect(E.isRight(r)).toBe(true);
    expect(sent).toEqual([
      { metadata: { resourceVersion: '5' }, status: { initializers: ['system:apibindings'] } },
      { metadata: { resourceVersion: '6' }, status: { initializers: [] } },
    ]);
  });

  it('should succeed without writing when the initializer is already gone', async () => {
    const { cluster, sent } = fakeCluster([lc('root:a', ['other'])], []);
    expect(E.isRight(await finishInitialization(cluster, 'x:t'))).toBe(true);
    expect(sent).toEqual([]);
  });
});

describe('workspaceNamer', () => {
  const logical = clusterName('2x9k');
  it('names a workspace by its logical name unless path-aware', async () => {
    const said: ReportInput[] = [];
    const namer = workspaceNamer({ management: { yaml: 'not a kubeconfig' } }, (r) => said.push(r));
    expect(await lastValueFrom(namer.name(logical, lc('root:org:a')))).toBe('2x9k');
    namer.close();
    expect(said).toEqual([]);
  });

  it('takes the path a hint carries, and falls back to the logical name with an error naming the workspace', async () => {
    const said: ReportInput[] = [];
    // A kubeconfig that cannot be loaded: no front door, so only hints can name.
    const namer = workspaceNamer({ management: { yaml: 'not a kubeconfig' }, pathAware: true }, (r) => said.push(r));
    expect(await lastValueFrom(namer.name(logical, lc('root:org:a')))).toBe('root:org:a');
    expect(said).toEqual([]);
    expect(await lastValueFrom(namer.name(logical, lc(undefined)))).toBe('2x9k');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ type: 'error' });
    expect(said[0]?.type === 'error' ? said[0].reason : '').toMatch(/^workspace 2x9k: its path cannot be read \(.+\); it is engaged under its logical name$/);
    namer.close();
  });
});
