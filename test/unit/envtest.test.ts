// rxfleet/envtest's pure parts: which binary it runs (versions file, cache, env overrides) and how
// it says why a server is not ready. Starting real servers is covered by every integration test
// (test/support is built on src/envtest) and by the new-user test (a scaffold's envtest test).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheDir, ensureBinaries, readVersions, repoRoot, resolveBinary } from '../../src/envtest/binaries.js';
import { readyzProblem } from '../../src/envtest/http.js';
import { ConfigError } from '../../src/core/config-error.js';

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['RXFLEET_CACHE_DIR', 'RXFLEET_KCP_BIN', 'RXFLEET_ETCD_BIN']) {
    if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = saved[k];
  }
});

describe('rxfleet/envtest binaries', () => {
  it('reads the versions the project tests against from hack/versions.env', () => {
    const v = readVersions();
    expect(v.get('KCP_VERSION')).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(v.get('KUBE_APISERVER_VERSION')).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(v.get('ETCD_VERSION')).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(repoRoot).toBe(join(import.meta.dirname, '..', '..'));
  });

  it('looks in ${RXFLEET_CACHE_DIR}/bin/<name>-<version> and says how to build a missing binary', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-envtest-cache-'));
    try {
      process.env.RXFLEET_CACHE_DIR = dir;
      expect(cacheDir()).toBe(dir);
      const version = readVersions().get('ETCD_VERSION') ?? '';
      expect(() => resolveBinary('etcd')).toThrow(`etcd ${version} is not built: ${join(dir, 'bin', `etcd-${version}`)} is missing. Run \`bash ${join(repoRoot, 'hack', 'ensure-binaries.sh')}\``);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prefers an env override, and refuses one that is not executable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-envtest-bin-'));
    try {
      const fake = join(dir, 'etcd');
      writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
      process.env.RXFLEET_ETCD_BIN = fake;
      // Present: ensureBinaries runs no build script and resolves to the override.
      expect(await ensureBinaries(['etcd'])).toEqual([{ name: 'etcd', version: readVersions().get('ETCD_VERSION'), path: fake, overridden: true }]);
      const plain = join(dir, 'not-executable');
      writeFileSync(plain, '', { mode: 0o644 });
      process.env.RXFLEET_ETCD_BIN = plain;
      expect(() => resolveBinary('etcd')).toThrow(new ConfigError(`RXFLEET_ETCD_BIN=${plain} is not an executable file; point it at the etcd binary, or unset it to use the cached build`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rxfleet/envtest readiness messages', () => {
  it('names the failed /readyz checks', () => {
    const body = '[+]ping ok\n[-]poststarthook/kcp-start-informers failed: not finished\n[-]informer-sync failed: reason withheld\nreadyz check failed';
    expect(readyzProblem(500, body)).toBe('/readyz 500: not ready: poststarthook/kcp-start-informers, informer-sync');
  });

  it('falls back to the end of the body when it lists no check', () => {
    expect(readyzProblem(503, 'service unavailable')).toBe('/readyz 503: service unavailable');
  });
});
