// Which shard publishes a virtual-workspace URL, for the reports of an endpoint that fails: a URL
// the controller cannot reach is most often a shard's internal address published in the slice, and
// the person who reads the report needs the shard's name to fix it. kcp's endpoint slices list URLs
// only; the Shards in the root workspace say whose each is (`spec.virtualWorkspaceURL`). They are
// read through kcp's front door with the provider's credentials, once per failing report of an
// endpoint (reports are already one per distinct cause), and the answer says why when they cannot
// be read (most provider identities may not read root).
import type { ClusterClient } from '../../client/client.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Reporter } from '../internal/report.js';
import type { KcpProviderOptions } from './config.js';
import { kcpBase, kcpClient, loadProviderKubeconfig, providerServer } from './credentials.js';

/** What a person is told about a failing endpoint's problem, by error tag. */
const trouble: Readonly<Record<string, string>> = {
  ClusterUnreachable: 'cannot be reached from this controller (is it an address only the shards can reach?)',
  Tls: 'fails TLS verification with the provider kubeconfig\'s CA',
  Timeout: 'does not answer',
  Unauthorized: 'refuses the provider\'s credentials',
  Forbidden: 'forbids the provider\'s identity',
};

/**
 * Names the shard that publishes a virtual-workspace URL, for reports.
 *
 * @example
 * ```ts
 * const namer = shardNamer(config);
 * console.log(await namer.describe('https://10.0.0.7:6443/services/apiexport/2x9k/widgets')); // 'shard shard-1'
 * namer.close();
 * ```
 */
export interface ShardNamer {
  /** `shard <name>`, or `an unknown shard (<why>)`; never rejects. */
  describe(url: string): Promise<string>;
  /** Closes its client. */
  close(): void;
}

interface ShardList {
  readonly items?: readonly { readonly metadata?: { readonly name?: string }; readonly spec?: { readonly virtualWorkspaceURL?: string } }[];
}

/**
 * The shard of a URL: the Shard whose `spec.virtualWorkspaceURL` the URL starts with.
 *
 * @example
 * ```ts
 * shardOfUrl({ items: [{ metadata: { name: 'shard-1' }, spec: { virtualWorkspaceURL: 'https://s1:6443' } }] }, 'https://s1:6443/services/apiexport/x/y'); // 'shard-1'
 * ```
 * @param list - a ShardList as kcp answers it.
 * @param url - a virtual-workspace endpoint URL.
 * @returns the shard's name, if one publishes it.
 */
export function shardOfUrl(list: unknown, url: string): string | undefined {
  const items = (list as ShardList | undefined)?.items ?? [];
  const hit = items.find((s) => {
    const base = (s.spec?.virtualWorkspaceURL ?? '').replace(/\/+$/, '');
    return base !== '' && (url === base || url.startsWith(`${base}/`));
  });
  return hit?.metadata?.name;
}

/**
 * A {@link ShardNamer} reading Shards through the front door of the provider kubeconfig's kcp (a
 * client made here, closed by `close()`): one `GET /clusters/root/apis/core.kcp.io/v1alpha1/shards` per call.
 *
 * @example
 * ```ts
 * const namer = shardNamer({ management: { file: 'provider.kubeconfig' } });
 * ```
 * @param config - the provider's config (kubeconfig, client options).
 * @returns the namer.
 */
export function shardNamer(config: KcpProviderOptions): ShardNamer {
  const name = clusterName('kcp front door');
  const kc = loadProviderKubeconfig(name, config.management);
  const front: Either<KubeError, ClusterClient> = E.isLeft(kc) ? kc : kcpClient(name, kcpBase(providerServer(kc.right)), config.management, config.client);
  return {
    describe: async (url) => {
      if (E.isLeft(front)) return `an unknown shard (the provider kubeconfig cannot be used: ${front.left.message})`;
      const res = await front.right.raw({ method: 'GET', path: '/clusters/root/apis/core.kcp.io/v1alpha1/shards' });
      if (E.isLeft(res)) return `an unknown shard (the Shards in root cannot be read: ${res.left.message})`;
      const shard = shardOfUrl(res.right, url);
      return shard === undefined ? 'an unknown shard (no Shard in root publishes it)' : `shard ${shard}`;
    },
    close: () => {
      if (E.isRight(front)) front.right.close();
    },
  };
}

/**
 * The reporter of one endpoint: its `source` failing reports say which endpoint, published by
 * which shard, has which trouble (the management watch's own words follow); every report keeps its
 * order (a failing report waits for the shard's name, and what follows waits for it). Nothing is
 * said once `closed()` is true: the endpoint has gone.
 *
 * @example
 * ```ts
 * const say2 = endpointReporter('https://10.0.0.7:6443/services/apiexport/2x9k/widgets', say, namer, () => false);
 * ```
 * @param url - the endpoint URL.
 * @param say - the provider's reporter.
 * @param shards - names the shard of the URL.
 * @param closed - true once the endpoint is closed.
 * @returns the endpoint's reporter.
 */
export function endpointReporter(url: string, say: Reporter, shards: ShardNamer, closed: () => boolean): Reporter {
  // Reports waiting behind a shard lookup; while none is, a report is said at once.
  let pending = 0;
  let queue: Promise<void> = Promise.resolve();
  const later = (f: () => Promise<void> | void): void => {
    pending++;
    queue = queue
      .then(f)
      .catch(() => undefined)
      .finally(() => {
        pending--;
      });
  };
  return (r) => {
    if (r.type !== 'source' || r.state !== 'failing') {
      if (pending === 0) say(r);
      else
        later(() => {
          if (!closed()) say(r);
        });
      return;
    }
    const described = shards.describe(url);
    later(async () => {
      const shard = await described;
      if (closed()) return;
      const what = trouble[r.error] ?? 'is failing';
      say({ ...r, reason: `virtual-workspace endpoint ${url}, published by ${shard} in the endpoint slice, ${what}: ${r.reason}` });
    });
  };
}
