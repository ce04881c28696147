// Exec credential plugins against the real kube-apiserver: a plugin issuing short-lived tokens is
// run again before its token expires and after it has, a 401 makes the client ask again once, and
// a failing plugin's stderr is in the error.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, namespaces } from '../../src/index.js';
import { kubeApiserverAccess, kubeconfigWith } from './providers-support.js';
import { eventually } from '../support/wait.js';

/** A plugin in its own directory: `mode` picks the behaviour, `count` and `calls` record runs. */
function plugin(mode: 'short' | 'wrong-then-right' | 'fail', token: string): { dir: string; kubeconfig: string; count(): number; calls(): number[]; expiries(): number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-exec-'));
  writeFileSync(join(dir, 'token'), token);
  const script = `#!/bin/sh
dir="${dir}"
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 )); echo $n > "$dir/count"
date +%s%3N >> "$dir/calls"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/exec-info"
case "${mode}" in
  fail) echo "token service unavailable: try again later" >&2; exit 3 ;;
  wrong-then-right) if [ $n -eq 1 ]; then token=wrong; else token=$(cat "$dir/token"); fi; exp="" ;;
  short) token=$(cat "$dir/token"); e=$(( $(date +%s) + 6 )); echo "$e" >> "$dir/expiries"; exp=$(date -u -d "@$e" +%Y-%m-%dT%H:%M:%SZ) ;;
esac
if [ -n "$exp" ]; then extra=",\\"expirationTimestamp\\":\\"$exp\\""; else extra=""; fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"%s}}' "$token" "$extra"
`;
  const path = join(dir, 'plugin.sh');
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  const { server, caData } = kubeApiserverAccess();
  const lines = (f: string): number[] => {
    try {
      return readFileSync(join(dir, f), 'utf8').trim().split('\n').filter((l) => l !== '').map(Number);
    } catch {
      return [];
    }
  };
  return {
    dir,
    kubeconfig: kubeconfigWith(server, caData, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: path, provideClusterInfo: true, interactiveMode: 'Never' } }),
    count: () => lines('count')[0] ?? 0,
    calls: () => lines('calls'),
    expiries: () => lines('expiries').map((s) => s * 1000),
  };
}

function client(yaml: string) {
  const c = createClusterClient(clusterName('exec'), { yaml });
  if (E.isLeft(c)) throw new Error(c.left.message);
  return c.right;
}

describe('exec credential plugins against kube-apiserver', () => {
  it('should reuse a short-lived token, run the plugin again before it expires, and again after it has', async () => {
    const p = plugin('short', kubeApiserverAccess().token);
    const c = client(p.kubeconfig);
    expect(E.isRight(await c.list(namespaces, { limit: 1 }))).toBe(true);
    expect(E.isRight(await c.list(namespaces, { limit: 1 }))).toBe(true);
    expect(p.count()).toBe(1);
    // The plugin was told which cluster it issues for (provideClusterInfo).
    expect(JSON.parse(readFileSync(join(p.dir, 'exec-info'), 'utf8'))).toMatchObject({ kind: 'ExecCredential', spec: { interactive: false, cluster: { server: kubeApiserverAccess().server } } });

    // Inside the first token's last 20%, before it expires, a request has a new one fetched: asked
    // every 100 ms, the first request in that window is the one.
    const firstExpiry = p.expiries()[0] ?? 0;
    await eventually(
      'a request to run the plugin again',
      async () => {
        expect(E.isRight(await c.list(namespaces, { limit: 1 }))).toBe(true);
        return p.count() >= 2;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(p.count()).toBe(2);
    expect(p.calls()[1]).toBeLessThan(firstExpiry);

    // Once the second token has expired (no request meanwhile): fetched again.
    const secondExpiry = p.expiries()[1] ?? 0;
    await eventually('the second token to expire', () => Date.now() > secondExpiry, { timeoutMs: 15_000, intervalMs: 100 });
    expect(E.isRight(await c.list(namespaces, { limit: 1 }))).toBe(true);
    expect(p.count()).toBe(3);
    c.close();
  });

  it('should run the plugin again after a 401 and succeed with the new token', async () => {
    const p = plugin('wrong-then-right', kubeApiserverAccess().token);
    const c = client(p.kubeconfig);
    const r = await c.list(namespaces, { limit: 1 });
    expect(E.isRight(r)).toBe(true);
    expect(p.count()).toBe(2);
    // The good token (no expiry) is kept.
    expect(E.isRight(await c.list(namespaces, { limit: 1 }))).toBe(true);
    expect(p.count()).toBe(2);
    c.close();
  });

  it('should put the plugin’s stderr in the error when it fails, and try again on the next request', async () => {
    const p = plugin('fail', 'unused');
    const c = client(p.kubeconfig);
    const r = await c.list(namespaces, { limit: 1 });
    expect(E.isLeft(r) && r.left.type).toBe('Unauthorized');
    expect(E.isLeft(r) && r.left.message).toContain('token service unavailable: try again later');
    expect(E.isLeft(r) && r.left.message).toContain('exited with code 3');
    await c.list(namespaces, { limit: 1 });
    expect(p.count()).toBe(2);
    c.close();
  });
});
