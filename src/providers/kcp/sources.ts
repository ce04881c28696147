// Where a kcp provider's virtual-workspace URLs come from: one object of the provider workspace (an
// APIExportEndpointSlice, a WorkspaceType), watched through a client of that workspace. The watch's
// health and the object's absence are the provider's `source` reports; a kubeconfig that cannot be
// used yet is reported and tried again with the watch backoff.
import type { Observable } from 'rxjs';
import { asyncScheduler, defer, finalize, retry, tap, throwError, timer } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resourceId } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import { backoffDelay, defaultBackoff } from '../../streams/backoff.js';
import type { Cluster } from '../../streams/cluster.js';
import type { WatchEvent } from '../../streams/events.js';
import { managementWatch } from '../internal/management.js';
import type { Reporter } from '../internal/report.js';
import type { KcpProviderOptions } from './config.js';
import { kcpClient, loadProviderKubeconfig, providerServer } from './credentials.js';
import { urlsOf } from './urls.js';

/**
 * The workspace a kcp server URL points at, as a person would name it: the part after `/clusters/`
 * (a path such as `root:org:provider`), or the URL itself when it has none.
 *
 * @example
 * ```ts
 * workspaceOf('https://kcp:6443/clusters/root:org:provider'); // 'root:org:provider'
 * ```
 * @param server - the provider workspace's server URL.
 * @returns its workspace.
 */
export function workspaceOf(server: string): string {
  const m = /\/clusters\/([^/]+)\/*$/.exec(server);
  return m?.[1] === undefined ? server : decodeURIComponent(m[1]);
}

/** Reports the watched object missing (`source` failing, NotFound) and back (recovered), once per episode. */
function reportAbsence<T extends KubeObject>(say: Reporter, management: ClusterName, r: ResourceDescriptor<T>, objectName: string): (ev: WatchEvent<T>) => void {
  const what = `${r.kind} "${objectName}" in workspace ${management}`;
  let missing = false;
  let listed = false;
  return (ev) => {
    if (ev.type === 'initStarted' || ev.type === 'initApply') {
      listed = ev.type === 'initApply';
      return;
    }
    // The watch selects this one object by name: a listing has it or not, a change says which.
    const exists = ev.type === 'initDone' ? listed : ev.type === 'applied';
    if (!exists && !missing) {
      say({ type: 'source', state: 'failing', management, resource: resourceId(r), error: 'NotFound', reason: `${what} does not exist (is the name right?): no virtual-workspace URL can be read until it does` });
    } else if (exists && missing) {
      say({ type: 'source', state: 'recovered', management, resource: resourceId(r), reason: `${what} exists now` });
    }
    missing = !exists;
  };
}

/**
 * The virtual-workspace URLs one object of the provider workspace lists, as a stream of sets (see
 * {@link urlsOf}), watched with a client of the provider workspace that is closed when the stream
 * ends. Its health is reported as `source` (management = the provider workspace), and so is the
 * object's absence.
 *
 * @example
 * ```ts
 * const urls = listedUrls(config, say, apiExportEndpointSlices, 'widgets.example.com', (s: APIExportEndpointSlice) =>
 *   (s.status?.endpoints ?? []).map((e) => e.url),
 * );
 * urls.subscribe((list: readonly string[]) => console.log(list));
 * ```
 * @param config - the provider's config.
 * @param say - the subscription's reporter.
 * @param r - the resource of the URL-listing object.
 * @param objectName - its name.
 * @param pick - the URLs it lists.
 * @returns the cold stream of URL sets; it never errors.
 */
export function listedUrls<T extends KubeObject>(
  config: KcpProviderOptions,
  say: Reporter,
  r: ResourceDescriptor<T>,
  objectName: string,
  pick: (obj: T) => readonly string[],
): Observable<readonly string[]> {
  const scheduler = config.scheduler ?? asyncScheduler;
  const watch = { scheduler, ...config.managementWatch, fieldSelector: `metadata.name=${objectName}` };
  const backoff = { ...defaultBackoff, ...watch.backoff };
  return defer(() => {
    let failed: string | undefined;
    return defer(() => {
      const kc = loadProviderKubeconfig(clusterName('kcp provider workspace'), config.management);
      const server = E.isLeft(kc) ? '' : providerServer(kc.right);
      const name = clusterName(workspaceOf(server));
      const client = E.isLeft(kc) ? kc : kcpClient(name, server, config.management, config.client);
      if (E.isLeft(client)) {
        const reason = `the provider workspace's kubeconfig cannot be used: ${client.left.message}; retrying with backoff`;
        if (reason !== failed) say({ type: 'error', reason });
        failed = reason;
        return throwError(() => client.left);
      }
      const cluster: Cluster = { name, client: client.right };
      return managementWatch(cluster, r, watch, say).pipe(
        tap(reportAbsence(say, name, r, objectName)),
        urlsOf(pick),
        finalize(() => {
          client.right.close();
        }),
      );
    }).pipe(retry({ delay: (_err: unknown, n: number) => timer(backoffDelay(backoff, n - 1, watch.random), scheduler) }));
  });
}
