// The package a user installs: every public subpath resolves to built code, internals stay blocked.
// Runs against dist/, which `npm test` builds first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Imports `specifier` in a fresh Node process, the way a user's program would, and lists its exports. */
function importFresh(specifier: string): string[] {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)));`], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out) as string[];
}

/** The export names of several entry points, imported in one process (one start-up, not one per entry). */
function importAllFresh(specifiers: readonly string[]): Record<string, string[]> {
  const code = `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)); console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out) as Record<string, string[]>;
}

function importError(specifier: string): string {
  try {
    importFresh(specifier);
    return 'no error';
  } catch (err) {
    return String((err as { stderr?: unknown }).stderr);
  }
}

describe('the published package', () => {
  it('has been built (npm test builds before it tests)', () => {
    expect(existsSync(join(root, 'dist', 'index.js')), 'run `npm run build` first').toBe(true);
  });

  it.each([
    ['rxfleet', ['controller', 'main', 'clusterName', 'formatKey', 'configMaps', 'done', 'toAction', 'isLeft']],
    ['rxfleet/streams', ['createFleet', 'watchEvents', 'fleetWatch', 'createInformers', 'splitWatches', 'splitCache', 'staticProvider']],
    ['rxfleet/client', ['createClusterClient', 'loadKubeconfig', 'createTransport', 'kubeError']],
    ['rxfleet/runtime', ['startProbeServer', 'controllerMetrics', 'exitCodes', 'onStopSignals']],
    ['rxfleet/fp', ['E']],
    ['rxfleet/sinks', ['apply', 'update', 'ensureFinalizer', 'sweepOrphans']],
    ['rxfleet/operators', ['reconcile', 'mapToKeys', 'fanOut', 'debounceByKey', 'withFinalizer']],
    ['rxfleet/testing', ['keyedEvents', 'fakeFleet', 'takes', 'toLabels']],
  ])('resolves %s to built code with its exports', (specifier, names) => {
    expect(importFresh(specifier)).toEqual(expect.arrayContaining(names));
  });

  it('keeps the root to at most 40 runtime values, with no fp-ts helper that shadows rxjs', () => {
    const root = importFresh('rxfleet');
    expect(root.length).toBeLessThanOrEqual(40);
    expect(root).not.toEqual(expect.arrayContaining(['pipe']));
    expect(root).not.toEqual(expect.arrayContaining(['flow']));
  });

  // rxfleet/resources is the one home of the built-in descriptors; the root re-exports the five every
  // controller names (resources.test.ts checks they are the very same values).
  const reExported = ['configMaps', 'customResourceDefinitions', 'leases', 'namespaces', 'secrets'];

  it('exports each runtime value from one entry point only, but the built-in descriptors the root re-exports', () => {
    const entries = ['rxfleet', 'rxfleet/streams', 'rxfleet/client', 'rxfleet/runtime', 'rxfleet/fp', 'rxfleet/sinks', 'rxfleet/operators', 'rxfleet/testing', 'rxfleet/envtest', 'rxfleet/resources', ...providers.map((p) => `rxfleet/providers/${p}`)];
    const homes = new Map<string, string[]>();
    for (const [e, names] of Object.entries(importAllFresh(entries))) for (const name of names) homes.set(name, [...(homes.get(name) ?? []), e]);
    expect([...homes].filter(([, where]) => where.length > 1).sort(([a], [b]) => a.localeCompare(b))).toEqual(reExported.map((n) => [n, ['rxfleet', 'rxfleet/resources']]));
  });

  const providers = readdirSync(join(root, 'src', 'providers'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'internal')
    .map((d) => d.name);

  it('has a provider folder for each multicluster-runtime provider', () => {
    expect(providers).toEqual(expect.arrayContaining(['clusters', 'single', 'nop', 'file', 'kubeconfig-secrets', 'namespaces', 'cluster-api', 'cluster-profiles', 'kind', 'multi']));
  });

  it.each(providers)('resolves rxfleet/providers/%s to built code', (name) => {
    expect(importFresh(`rxfleet/providers/${name}`).length).toBeGreaterThan(0);
  });

  it('blocks internals and deep imports', () => {
    expect(importError('rxfleet/providers/internal')).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(importError('rxfleet/providers/internal/engage.js')).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(importError('rxfleet/internal/fp.js')).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(importError('rxfleet/dist/index.js')).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('ships only what the files allow-list names, with types for every export', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      type: string;
      sideEffects: boolean;
      exports: Record<string, { types?: string; default?: string } | string | null>;
    };
    expect(pkg.type).toBe('module');
    expect(pkg.sideEffects).toBe(false);
    for (const [path, target] of Object.entries(pkg.exports)) {
      if (target === null || typeof target === 'string') continue;
      expect(target.types, `${path} has types`).toMatch(/\.d\.ts$/);
    }
  });

  it('leaves the command line, code generation and pretty printing to @rxfleet/cli, and client-node to those who need it', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      bin?: unknown;
      exports: Record<string, unknown>;
    };
    for (const tool of ['yargs', 'json-schema-to-typescript', 'prettier', 'pino-pretty', '@kubernetes/client-node', '@rxfleet/cli']) expect(pkg.dependencies, tool).not.toHaveProperty(tool);
    expect(pkg.peerDependencies).toHaveProperty('@kubernetes/client-node');
    expect(pkg.peerDependenciesMeta['@kubernetes/client-node']).toEqual({ optional: true });
    // pino-pretty is loaded when the project has it, and declared nowhere: npm keeps a dev
    // dependency that a production package names as an optional peer in `--omit=dev` installs.
    expect(pkg.peerDependencies).not.toHaveProperty('pino-pretty');
    expect(pkg.bin).toBeUndefined();
    expect(pkg.exports).not.toHaveProperty('./codegen');
  });

  it('has no declaration file that needs an optional peer (a user without it compiles with skipLibCheck: false)', () => {
    const declarations = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? declarations(join(dir, d.name)) : d.name.endsWith('.d.ts') ? [join(dir, d.name)] : []));
    const code = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\*|\/\/)/.test(l));
    const needing = declarations(join(root, 'dist')).filter((f) => code(f).some((l) => /['"](@kubernetes\/client-node|pino-pretty)['"]/.test(l)));
    expect(needing.map((f) => f.slice(root.length + 1))).toEqual([]);
  });

  it('is released with @rxfleet/cli and create-rxfleet at one version, each taking the others at it', () => {
    const read = (dir: string) =>
      JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; bin?: Record<string, string> };
    const [rxfleet, cli, create] = [read('.'), read('packages/cli'), read('packages/create-rxfleet')];
    expect([cli.version, create.version]).toEqual([rxfleet.version, rxfleet.version]);
    expect(cli.peerDependencies?.rxfleet).toBe(`^${rxfleet.version}`);
    expect(cli.bin).toEqual({ rxfleet: './dist/bin.js' });
    expect(create.dependencies?.['@rxfleet/cli']).toBe(cli.version);
    expect(create.bin).toEqual({ 'create-rxfleet': './dist/bin.js' });
  });

  it('ships the sync agent as an application of its own, on rxfleet at the same version', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', 'sync-agent', 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string>; bin?: Record<string, string> };
    const rxfleet = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; exports: Record<string, unknown> };
    expect([pkg.name, pkg.version]).toEqual(['@rxfleet/sync-agent', rxfleet.version]);
    expect(pkg.dependencies?.rxfleet).toBe(rxfleet.version);
    expect(pkg.bin).toEqual({ 'rxfleet-sync-agent': './dist/bin.js' });
    expect(Object.keys(rxfleet.exports)).not.toEqual(expect.arrayContaining(['./sync']));
    expect(Object.keys(rxfleet.exports)).not.toEqual(expect.arrayContaining(['./cli']));
    expect(importFresh('@rxfleet/sync-agent')).toEqual(expect.arrayContaining(['syncAgent', 'syncController', 'parseSyncConfig', 'preflight', 'syncOptions']));
  });

  it('lets the sync agent reach rxfleet through its public entry points only', () => {
    const dir = join(root, 'packages', 'sync-agent', 'src');
    const escaping = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/from '(\.\.\/[^']*|rxfleet\/internal[^']*)'/g)].map((m) => `${f}: ${m[1] ?? ''}`));
    expect(escaping).toEqual([]);
  });

  it('takes rxjs as a peer dependency, so a user\'s operators and rxfleet\'s share one copy', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies?: Record<string, string> };
    expect(pkg.peerDependencies?.rxjs).toMatch(/^\^7\./);
    expect(pkg.dependencies).not.toHaveProperty('rxjs');
  });
});
