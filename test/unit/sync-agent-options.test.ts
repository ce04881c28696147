// `rxfleet-sync-agent`'s options: where the kubeconfigs come from (flag, environment, the config file's
// kubeconfigs block), and the configuration errors that stop it before it connects anywhere.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncAgentCli } from '../../packages/sync-agent/src/main.js';
import { syncOptions } from '../../packages/sync-agent/src/sync-options.js';
import { ConfigError } from '../../src/index.js';

const kubeconfig = (server: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });

const config = 'apiExport: databases.db.example.dev\npublished:\n  - name: databases\n    crd: { group: db.example.dev, kind: Database }\n';

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rxfleet-sync-options-'));
  mkdirSync(join(d, 'kube'));
  writeFileSync(join(d, 'kube', 'kcp'), kubeconfig('https://kcp.example:6443/clusters/root:services'));
  writeFileSync(join(d, 'kube', 'service'), kubeconfig('https://service.example:6443'));
  return d;
}

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    if (err instanceof Error) return err;
  }
  throw new Error('expected an error');
}

describe('syncOptions', () => {
  it('reads the configuration and takes the kubeconfigs from the flags', () => {
    const d = dir();
    writeFileSync(join(d, 'sync.yaml'), config);
    const o = syncOptions({ config: join(d, 'sync.yaml'), kcpKubeconfig: join(d, 'kube', 'kcp'), serviceKubeconfig: join(d, 'kube', 'service') }, {});
    expect(o.config).toEqual({ apiExport: 'databases.db.example.dev', published: [{ name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } }] });
    expect(o.kcpKubeconfig).toBe(join(d, 'kube', 'kcp'));
    expect(o.serviceKubeconfig).toBe(join(d, 'kube', 'service'));
  });

  it("falls back to the environment, then to the file's kubeconfigs block (relative to the file)", () => {
    const d = dir();
    writeFileSync(join(d, 'sync.yaml'), `kubeconfigs:\n  kcp: kube/kcp\n  service: kube/service\n${config}`);
    const fromFile = syncOptions({ config: join(d, 'sync.yaml') }, {});
    expect(fromFile.kcpKubeconfig).toBe(join(d, 'kube', 'kcp'));
    expect(fromFile.serviceKubeconfig).toBe(join(d, 'kube', 'service'));
    // The block is the command's: the agent's configuration does not see it.
    expect(Object.keys(fromFile.config)).toEqual(['apiExport', 'published']);
    const fromEnv = syncOptions({ config: join(d, 'sync.yaml') }, { SERVICE_KUBECONFIG: join(d, 'kube', 'kcp') });
    expect(fromEnv.serviceKubeconfig).toBe(join(d, 'kube', 'kcp'));
    const fromFlag = syncOptions({ config: join(d, 'sync.yaml'), serviceKubeconfig: join(d, 'kube', 'kcp') }, { SERVICE_KUBECONFIG: join(d, 'kube', 'service') });
    expect(fromFlag.serviceKubeconfig).toBe(join(d, 'kube', 'kcp'));
  });

  it('refuses a missing kubeconfig, an unreadable one, and a bad kubeconfigs block, saying what to fix', () => {
    const d = dir();
    writeFileSync(join(d, 'sync.yaml'), config);
    const missing = thrown(() => syncOptions({ config: join(d, 'sync.yaml'), kcpKubeconfig: join(d, 'kube', 'kcp') }, {}));
    expect(missing).toBeInstanceOf(ConfigError);
    expect(missing.message).toContain('--service-kubeconfig is required (or SERVICE_KUBECONFIG, or kubeconfigs in the config file)');
    const absent = thrown(() => syncOptions({ config: join(d, 'sync.yaml'), kcpKubeconfig: join(d, 'nope'), serviceKubeconfig: join(d, 'kube', 'service') }, {}));
    expect(absent).toBeInstanceOf(ConfigError);
    expect(absent.message).toMatch(/^--kcp-kubeconfig: .*nope/);
    writeFileSync(join(d, 'block.yaml'), `kubeconfigs:\n  other: kube/kcp\n${config}`);
    const block = thrown(() => syncOptions({ config: join(d, 'block.yaml') }, {}));
    expect(block).toBeInstanceOf(ConfigError);
    expect(block.message).toBe(`${join(d, 'block.yaml')}: kubeconfigs.other: unknown key; expected kcp or service`);
  });

  it('names the file when it cannot be read, is not YAML, or is not a valid configuration', () => {
    const d = dir();
    const gone = thrown(() => syncOptions({ config: join(d, 'missing.yaml') }, {}));
    expect(gone).toBeInstanceOf(ConfigError);
    expect(gone.message).toContain(`--config ${join(d, 'missing.yaml')}: cannot read it`);
    writeFileSync(join(d, 'broken.yaml'), 'published: [');
    const broken = thrown(() => syncOptions({ config: join(d, 'broken.yaml') }, {}));
    expect(broken.message).toContain(`${join(d, 'broken.yaml')}: not valid YAML or JSON`);
    writeFileSync(join(d, 'bad.yaml'), 'apiExport: x\npublished:\n  - name: db\n    crd: { group: g.dev, kind: D }\n    colour: blue\n');
    const bad = thrown(() => syncOptions({ config: join(d, 'bad.yaml') }, {}));
    expect(bad).toBeInstanceOf(ConfigError);
    expect(bad.message).toContain(join(d, 'bad.yaml'));
    expect(bad.message).toContain('published[0].colour');
  });
});

describe('rxfleet-sync-agent (arguments)', () => {
  it('needs --config and refuses a port out of range: usage errors, before anything runs', async () => {
    await expect(async () => syncAgentCli([]).parseAsync()).rejects.toThrow(new ConfigError('Missing required argument: config (rxfleet-sync-agent --help shows the usage)'));
    await expect(async () => syncAgentCli(['--config', 'x.yaml', '--port', '70000']).parseAsync()).rejects.toThrow(new ConfigError('--port must be an integer from 0 to 65535, got 70000'));
  });

  it('reports a missing file before loading the agent', async () => {
    await expect(async () => syncAgentCli(['--config', '/nonexistent/sync.yaml']).parseAsync()).rejects.toThrow(/^--config \/nonexistent\/sync\.yaml: cannot read it/);
  });
});
