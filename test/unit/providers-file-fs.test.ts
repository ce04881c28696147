// The file provider on the real file system, with its real calls: fs.watch (or polling), reads
// through fs/promises, and a big kubeconfig parsed in a worker thread. A Kubernetes Secret volume's
// `..data` link swap and a big file's edit re-engage only the context that changed; a file that
// did not change is not parsed again. No server: contexts are engaged without a probe.
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeconfigFileSystem } from '../../src/providers/file/index.js';
import { kubeconfigFileProvider, nodeKubeconfigFileSystem, workerParseBytes } from '../../src/providers/file/index.js';
import type { FleetEvent } from '../../src/streams/cluster.js';
import { eventually } from '../support/wait.js';

/** A kubeconfig (YAML) with one context per name, each with a client certificate of `certBytes` base64 characters. */
function kubeconfig(servers: Record<string, number>, certBytes = 0): string {
  const names = Object.keys(servers);
  const cert = 'A'.repeat(certBytes);
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.map((n) => ({ name: n, cluster: { server: `https://127.0.0.1:${servers[n] ?? 0}` } })),
    users: names.map((n) => ({ name: n, user: certBytes === 0 ? { token: 't' } : { 'client-certificate-data': cert, 'client-key-data': cert } })),
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user: n } })),
  });
}

/** What a test sees: the events, and a wait (bounded) for one that matches. */
function record(): { readonly events: string[]; readonly until: (what: string, timeoutMs?: number) => Promise<void>; readonly push: (ev: FleetEvent) => void } {
  const events: string[] = [];
  return {
    events,
    push: (ev) => events.push(ev.type === 'engaged' ? `+${ev.cluster.name}` : ev.type === 'disengaged' ? `-${ev.cluster}` : `${ev.report.type}${'reason' in ev.report ? ` ${ev.report.reason}` : ''}`),
    until: async (what, timeoutMs = 20_000) => {
      await eventually(`"${what}"`, () => events.includes(what), { timeoutMs, context: () => `saw ${JSON.stringify(events)}` });
    },
  };
}

let sub: Subscription | undefined;
afterEach(() => sub?.unsubscribe());

describe('kubeconfigFileProvider on the real file system', () => {
  it('should follow a Secret volume link swap and a big file edited in place through fs.watch, parsing only what changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-file-fs-'));
    // A Secret volume as the kubelet lays it out: fleet.kubeconfig -> ..data/fleet.kubeconfig, ..data -> ..v1.
    const version = (v: string, port: number): void => {
      mkdirSync(join(dir, v));
      writeFileSync(join(dir, v, 'fleet.kubeconfig'), kubeconfig({ east: port }));
      symlinkSync(v, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    };
    version('..v1', 1);
    symlinkSync(join('..data', 'fleet.kubeconfig'), join(dir, 'fleet.kubeconfig'));
    const big = join(dir, 'big.kubeconfig');
    const servers = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`ctx-${i}`, 1000 + i]));
    writeFileSync(big, kubeconfig(servers, 2_000));
    const parsed: number[] = [];
    const fs: KubeconfigFileSystem = {
      ...nodeKubeconfigFileSystem,
      parse: (bytes) => {
        parsed.push(bytes.length);
        return nodeKubeconfigFileSystem.parse(bytes);
      },
    };
    const rec = record();
    sub = kubeconfigFileProvider({ paths: [dir], probe: false, rescanIntervalMs: 600_000, debounceMs: 50, fileSystem: fs }).subscribe(rec.push);
    await rec.until('discovered');
    expect(rec.events.filter((e) => e.startsWith('+'))).toHaveLength(101);
    expect(parsed.filter((n) => n >= workerParseBytes)).toHaveLength(1);

    // The kubelet's atomic update: a new version directory, then ..data swapped by rename.
    const before = rec.events.length;
    version('..v2', 2);
    await rec.until('reengaged credentials or server changed');
    expect(rec.events.slice(before)).toEqual(['-east', 'disengaged credentials or server changed', '+east', 'reengaged credentials or server changed']);
    // The big file did not change: not parsed again.
    expect(parsed.filter((n) => n >= workerParseBytes)).toHaveLength(1);

    // One context of the big file changes, written in place: parsed again (in the worker), only it re-engaged.
    const edited = rec.events.length;
    writeFileSync(big, kubeconfig({ ...servers, 'ctx-7': 7777 }, 2_000));
    await rec.until('-ctx-7');
    await rec.until('+ctx-7');
    expect(rec.events.slice(edited).filter((e) => e.startsWith('+') || e.startsWith('-'))).toEqual(['-ctx-7', '+ctx-7']);
    expect(parsed.filter((n) => n >= workerParseBytes)).toHaveLength(2);

    // A big file that stops parsing is skipped with its path and where it broke, without quoting it.
    writeFileSync(big, `${kubeconfig(servers, 2_000)}\nusers: [ {\n`);
    await rec.until('-ctx-0');
    const skipped = rec.events.find((e) => e.startsWith(`skipped invalid kubeconfig ${big}:`));
    expect(skipped).toMatch(/at line \d+, column \d+$/);
  });

  it('should see changes by polling, reading nothing that did not change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-file-poll-'));
    const f = join(dir, 'a.kubeconfig');
    writeFileSync(f, kubeconfig({ east: 1 }));
    let reads = 0;
    let stats = 0;
    const fs: KubeconfigFileSystem = {
      ...nodeKubeconfigFileSystem,
      stat: (p) => {
        if (p === f) stats += 1;
        return nodeKubeconfigFileSystem.stat(p);
      },
      // 10 s ahead: the file just written counts as still, so its stamp is trusted at once.
      now: () => Date.now() + 10_000,
      read: (p) => {
        reads += 1;
        return nodeKubeconfigFileSystem.read(p);
      },
    };
    const rec = record();
    sub = kubeconfigFileProvider({ paths: [f], watch: 'poll', pollIntervalMs: 20, debounceMs: 0, probe: false, rescanIntervalMs: 600_000, fileSystem: fs }).subscribe(rec.push);
    await rec.until('discovered');
    // Polls every 20 ms meanwhile: each stats the file, none reads it. Scans run one at a time, so
    // when the third scan after discovery stats the file, two whole scans have looked at it.
    const statsAtDiscovery = stats;
    await eventually('two scans after discovery', () => stats >= statsAtDiscovery + 3, { timeoutMs: 10_000 });
    const settled = reads;
    expect(settled).toBe(1);
    writeFileSync(`${f}.tmp`, kubeconfig({ east: 2 }));
    renameSync(`${f}.tmp`, f);
    await rec.until('reengaged credentials or server changed');
    expect(reads).toBeGreaterThan(settled);
  });
});
