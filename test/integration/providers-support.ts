// Helpers of the provider integration tests: run a provider and record its lifecycle events and
// the reports in its stream, wait for them, reach objects through an engaged cluster's watch, and
// kubeconfigs for the shared servers.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { filter, firstValueFrom, map, timeout } from 'rxjs';
import type { ClusterClient } from '../../src/client/index.js';
import type { Cluster, Provider } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { FleetEvent } from '../../src/streams/index.js';
import { watchEvents } from '../../src/streams/index.js';
import type { ProviderReport } from '../../src/streams/provider-report.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';

export interface Recorder {
  /** Engaged and disengaged events, in order. */
  readonly events: FleetEvent[];
  /** The reports of the provider's stream, in order. */
  readonly reports: ProviderReport[];
  readonly start: (p: Provider) => void;
  readonly stop: () => void;
  /** The cluster engaged under `name` now. */
  readonly engaged: (name: string) => Cluster | undefined;
  /** Waits for the first event matching `pred`. */
  readonly waitEvent: (what: string, pred: (ev: FleetEvent) => boolean, timeoutMs?: number) => Promise<FleetEvent>;
  readonly waitReport: (what: string, pred: (r: ProviderReport) => boolean, timeoutMs?: number) => Promise<ProviderReport>;
}

export function recorder(): Recorder {
  const events: FleetEvent[] = [];
  const reports: ProviderReport[] = [];
  const current = new Map<string, Cluster>();
  let sub: Subscription | undefined;
  const waitFor = <T>(what: string, list: T[], pred: (x: T) => boolean, timeoutMs: number): Promise<T> =>
    eventually(what, () => list.find(pred), { timeoutMs, context: () => `events: ${events.map(show).join(', ')}; reports: ${JSON.stringify(reports)}` });
  return {
    events,
    reports,
    start: (p) => {
      sub = p.subscribe((ev) => {
        if (ev.type === 'report') {
          reports.push(ev.report);
          return;
        }
        events.push(ev);
        if (ev.type === 'engaged') current.set(ev.cluster.name, ev.cluster);
        else current.delete(ev.cluster);
      });
    },
    stop: () => sub?.unsubscribe(),
    engaged: (name) => current.get(name),
    waitEvent: (what, pred, timeoutMs = 60_000) => waitFor(what, events, pred, timeoutMs),
    waitReport: (what, pred, timeoutMs = 60_000) => waitFor(what, reports, pred, timeoutMs),
  };
}

export function show(ev: FleetEvent): string {
  if (ev.type === 'report') return `!${ev.report.type}`;
  return ev.type === 'engaged' ? `+${ev.cluster.name}` : `-${ev.cluster} (${ev.reason ?? ''})`;
}

/** The cluster an engaged or disengaged event names (a report names none). */
export function nameOf(ev: FleetEvent): string {
  return ev.type === 'engaged' ? ev.cluster.name : ev.type === 'disengaged' ? ev.cluster : '';
}

export const isEngaged =
  (name: string, after?: FleetEvent) =>
  (ev: FleetEvent): boolean =>
    ev.type === 'engaged' && ev.cluster.name === name && ev !== after;
export const isDisengaged =
  (name: string) =>
  (ev: FleetEvent): boolean =>
    ev.type === 'disengaged' && ev.cluster === name;

/** The first engaged event for `name` after the given count of events. */
export function engagedAfter(rec: Recorder, name: string, count: number): Promise<FleetEvent> {
  return rec.waitEvent(`${name} engaged (after event ${count})`, (ev) => rec.events.indexOf(ev) >= count && ev.type === 'engaged' && ev.cluster.name === name);
}

/** Sees ConfigMap `name` in `namespace` through a watch of the cluster's own client. */
export function seeConfigMap(cluster: Cluster, namespace: string, name: string, timeoutMs = 30_000): Promise<string> {
  return firstValueFrom(
    watchEvents(cluster, configMaps, { namespace }).pipe(
      filter((ev) => (ev.type === 'initApply' || ev.type === 'applied') && ev.object.metadata.name === name),
      map(() => name),
      timeout(timeoutMs),
    ),
  );
}

export async function createConfigMap(client: ClusterClient, namespace: string, name: string): Promise<void> {
  must(await client.create(configMaps, { metadata: { name, namespace }, data: { at: new Date().toISOString() } }), `create ConfigMap ${name}`);
}

/** Server, CA and admin token of the shared kube-apiserver. */
export function kubeApiserverAccess(): { server: string; caData: string; token: string } {
  const kc = new KubeConfig();
  kc.loadFromString(sharedKubeApiserver().kubeconfigYaml('admin'));
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster?.caData === undefined || user?.token === undefined) throw new Error('kube-apiserver kubeconfig without CA data or token');
  return { server: cluster.server, caData: cluster.caData, token: user.token };
}

/** A kubeconfig (JSON) for a server, CA and user entry. */
export function kubeconfigWith(server: string, caData: string | undefined, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, ...(caData === undefined ? {} : { 'certificate-authority-data': caData }) } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  });
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');

/**
 * What a Secret's kubeconfig could make the controller run or read, each working if used: an exec
 * plugin that prints `token` and leaves `mark` behind when it runs, and a token file holding it.
 */
export function credentialTraps(token: string, prefix: string): { readonly mark: string; readonly plugin: string; readonly tokenFile: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const mark = join(dir, 'plugin-ran');
  const plugin = join(dir, 'plugin.sh');
  writeFileSync(plugin, `#!/bin/sh\ntouch "${mark}"\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}"}}'\n`);
  chmodSync(plugin, 0o755);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, token);
  return { mark, plugin, tokenFile };
}
