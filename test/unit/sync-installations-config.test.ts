// The `installations` of the sync configuration (api-syncagent#13): each entry checked with its
// path; the fleet names of an installation's clusters; the namespace prefix on a copy's place; and
// the preflight refusal of two installations whose naming could give two objects one place, naming both.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import { clusterName } from '../../src/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { installationCollisions } from '../../packages/sync-agent/src/installations-config.js';
import { installationCluster, installationOf, namespacePrefixOf, namingReports } from '../../packages/sync-agent/src/installations.js';
import { reported } from '../../src/streams/index.js';
import { serviceName } from '../../packages/sync-agent/src/naming.js';
import { syncOptions } from '../../packages/sync-agent/src/sync-options.js';
import type { PublishedResource } from '../../packages/sync-agent/src/types.js';

const published: PublishedResource = { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } };
const config = (installations: unknown): unknown => ({ apiExport: 'databases.example.dev', installations, published: [published] });
const eu = { name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' };
const entry = (namespace?: string, namespaced = true): { where: string; entry: PublishedResource; namespaced: boolean } => ({
  where: 'published[0] "databases"',
  entry: namespace === undefined ? published : { ...published, naming: { namespace } },
  namespaced,
});

describe('sync config: installations', () => {
  it('a list of installations is accepted as written, and without it the config is what it was', () => {
    expect(parseSyncConfig(config([eu, { ...eu, name: 'us', namespacePrefix: 'us-', apiExport: 'other.example.dev' }])).installations).toEqual([eu, { ...eu, name: 'us', namespacePrefix: 'us-', apiExport: 'other.example.dev' }]);
    expect(parseSyncConfig({ apiExport: 'databases.example.dev', published: [published] }).installations).toBeUndefined();
  });

  it('every problem of an entry is reported with its path', () => {
    expect(syncConfigProblems(config([{ name: 'default', kubeconfig: 'a', namespacePrefix: 'a-' }, { name: 'eu', namespacePrefix: '' }, { ...eu, extra: 1 }, { name: 'Bad#', kubeconfig: 3, namespacePrefix: '-x' }]))).toEqual([
      `installations[0].name: "default" is the default installation's name (the --kcp-kubeconfig one); choose another`,
      "installations[1].kubeconfig: required: its provider workspace's kubeconfig (relative to the config file)",
      'installations[1].namespacePrefix: "" must not be empty (only the default installation has none)',
      'installations[2].extra: unknown field; expected one of name, kubeconfig, apiExport, namespacePrefix',
      'installations[2].name: "eu" is already the name of installations[1]',
      'installations[3].name: "Bad#" must be lowercase letters, digits and "-", starting and ending with a letter or digit',
      'installations[3].kubeconfig: expected a kubeconfig path, got number 3',
      'installations[3].namespacePrefix: "-x" must be lowercase letters, digits and "-", starting with a letter or digit, at most 62 characters',
    ]);
    expect(syncConfigProblems(config([]))).toEqual(['installations: must not be empty; leave it out to serve the default installation only']);
  });

  it("each installation's kubeconfig is read relative to the config file, and one that cannot be loaded is refused naming the installation", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-installations-'));
    const kubeconfig = JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:1' } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }], 'current-context': 'c' });
    for (const f of ['kcp.kubeconfig', 'service.kubeconfig', 'eu.kubeconfig']) writeFileSync(join(dir, f), kubeconfig);
    const file = join(dir, 'sync.yaml');
    writeFileSync(file, JSON.stringify({ ...(config([eu]) as object), kubeconfigs: { kcp: 'kcp.kubeconfig', service: 'service.kubeconfig' } }));
    expect(syncOptions({ config: file }, {}).config.installations?.[0]?.kubeconfig).toBe(join(dir, 'eu.kubeconfig'));
    writeFileSync(file, JSON.stringify({ ...(config([{ ...eu, kubeconfig: 'missing.kubeconfig' }]) as object), kubeconfigs: { kcp: 'kcp.kubeconfig', service: 'service.kubeconfig' } }));
    expect(() => syncOptions({ config: file }, {})).toThrow(/installations\[0\] "eu": kubeconfig: /);
  });

  it("an installation's clusters are named after it; the default installation's and a bare back-reference's are not", () => {
    expect(installationCluster('eu', 'root')).toBe('eu#root');
    expect(installationCluster(undefined, 'root')).toBe('root');
    expect(installationCluster('default', 'kcp-export')).toBe('kcp-export');
    expect([installationOf(clusterName('eu#root')), installationOf(clusterName('root'))]).toEqual(['eu', 'default']);
    // An installation the config does not list has no place: never the default's ('').
    expect([namespacePrefixOf([eu], 'eu#root'), namespacePrefixOf([eu], 'root'), namespacePrefixOf(undefined, 'eu#root'), namespacePrefixOf([eu], 'us#root')]).toEqual(['eu-', '', undefined, undefined]);
  });

  it("the prefix goes before the naming's namespace, and a result too long for a namespace is a naming error naming the prefix", () => {
    const obj = { metadata: { namespace: 'default', name: 'orders' } };
    const at = serviceName(published, 'root', obj, 'eu-');
    expect(E.isRight(at) ? at.right.namespace : at.left.message).toBe('eu-root');
    const long = serviceName(published, 'a'.repeat(61), obj, 'eu-');
    expect(E.isLeft(long) ? long.left.message : '').toContain("(with the installation's prefix), which is 64 characters");
  });

  it("an installation's failing discovery source and its errors name it; other events pass as they are", () => {
    const name = namingReports('eu');
    const failing = name(reported({ type: 'source', provider: 'kcp-apiexport', state: 'failing', management: clusterName('root:provider'), resource: 'apibindings', error: 'Timeout', reason: 'watch timed out', at: 1 }));
    expect(failing.type === 'report' ? failing.report : undefined).toMatchObject({ type: 'source', management: 'eu#root:provider', reason: 'watch timed out' });
    const error = name(reported({ type: 'error', provider: 'kcp-apiexport', reason: 'path of workspace x cannot be read', at: 1 }));
    expect(error.type === 'report' ? error.report : undefined).toMatchObject({ reason: 'installation eu: path of workspace x cannot be read' });
    const engagedReport = reported({ type: 'engaged', provider: 'kcp-apiexport', cluster: clusterName('eu#root'), at: 1 });
    expect(name(engagedReport)).toBe(engagedReport);
  });

  it('refuses, naming both, two installations whose naming could give two objects one place', () => {
    // The default naming puts root's copies in `root` and eu's in `eu-root`; but a workspace of the
    // default installation could be named `eu-root`: only text the template starts with tells them apart.
    expect(installationCollisions([eu], [entry()])).toEqual([
      expect.stringMatching(/^published\[0\] "databases": installations "default" \(namespace prefix ""\) and "eu" \(namespace prefix "eu-"\) can give two objects one service-side place: /),
    ]);
    expect(installationCollisions([eu, { ...eu, name: 'eu2' }], [entry('kcp-{{ .ClusterName }}')])).toEqual([expect.stringContaining('installations "eu" (namespace prefix "eu-") and "eu2" (namespace prefix "eu-")')]);
    expect(installationCollisions([eu, { ...eu, name: 'eux', namespacePrefix: 'eu-x' }], [entry('kcp-{{ .ClusterName }}')])).toEqual([]);
    // eu's workspace `kcp-root` and eux's `root` would both be `eu-kcp-kcp-root`.
    expect(installationCollisions([eu, { ...eu, name: 'eux', namespacePrefix: 'eu-kcp-' }], [entry('kcp-{{ .ClusterName }}')])).toEqual([expect.stringContaining('"eu" (namespace prefix "eu-") and "eux" (namespace prefix "eu-kcp-")')]);
    expect(installationCollisions([eu], [entry('kcp-{{ .ClusterName }}')])).toEqual([]);
    expect(installationCollisions([eu], [entry('databases')])).toEqual([]);
    expect(installationCollisions([eu], [entry(undefined, false)])).toEqual([expect.stringContaining('is cluster-scoped on the service cluster')]);
    expect(installationCollisions(undefined, [entry()])).toEqual([]);
  });
});
