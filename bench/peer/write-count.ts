// The write requests a controller sends, counted by the server itself (read as kcp's shard admin): kcp's own
// apiserver_request_total, verb APPLY, resource configmaps, summed over every workspace. The driver
// never applies (it creates, updates and deletes), so each APPLY counted between two readings was
// sent by the controller under test, whatever it is written in. And how the driver knows a
// restarted rxfleet controller has gone through every key, when it may send nothing at all.
import type { Kube } from './kube.js';
import { must } from './kube.js';

/**
 * The server's count of server-side applies of ConfigMaps so far.
 *
 * @example
 * const before = await appliesSoFar(kube);
 */
export async function appliesSoFar(kube: Kube): Promise<number> {
  const res = must(await kube.request('GET', '/metrics'), 'read kcp /metrics', 200);
  if (typeof res.body !== 'string') throw new Error('kcp /metrics did not answer text');
  let n = 0;
  for (const line of res.body.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('verb="APPLY"') && line.includes('resource="configmaps"')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

function sum(text: string, name: string, ...labels: string[]): number {
  let n = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) && labels.every((l) => line.includes(l))) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/**
 * Whether an rxfleet controller serving metrics on `port` has gone through every key since it
 * started: every watch listed, at least `keys` reconciles finished, and its queue empty.
 *
 * @example
 * await eventually('restart done', () => rxfleetIdle(9464, 2000, 40));
 */
export async function rxfleetIdle(port: number, keys: number, watches: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
  if (!res?.ok) return false;
  const text = await res.text();
  return sum(text, 'rxfleet_watch_synced') >= watches && sum(text, 'rxfleet_reconcile_total') >= keys && sum(text, 'rxfleet_workqueue_keys') === 0 && text.includes('rxfleet_workqueue_keys{');
}
