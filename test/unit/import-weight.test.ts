// A light import: the package's entry points must not load @kubernetes/client-node (~85 MiB and
// ~0.3 s), which rxfleet needs only for a legacy `auth-provider` user, loaded then, nor Node's
// bundled fetch (undici, ~2.5 MiB of the import), which an ESM `import` of node:http loads as a side
// effect, nor prom-client before a controller runs. Runs against dist/, in a fresh Node process whose load hook records every module it loads.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const providers = readdirSync(join(root, 'src', 'providers'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'internal')
  .map((d) => `rxfleet/providers/${d.name}`);
const entries = ['rxfleet', 'rxfleet/streams', 'rxfleet/client', 'rxfleet/runtime', 'rxfleet/fp', 'rxfleet/sinks', 'rxfleet/operators', 'rxfleet/testing', ...providers];

/**
 * The URLs of every module a fresh process loads while importing `specifiers`, then running
 * `after` (a module body), and the names of Node's own internal modules it loaded.
 */
function loaded(specifiers: readonly string[], after = ''): { urls: string[]; internals: string[] } {
  const code = `
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
for (const s of ${JSON.stringify(specifiers)}) await import(s);
${after}
console.log(JSON.stringify({ urls: seen, internals: process.moduleLoadList }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out) as { urls: string[]; internals: string[] };
}

function modulesLoaded(specifiers: readonly string[], after = ''): string[] {
  return loaded(specifiers, after).urls;
}

const clientNode = (urls: readonly string[]): string[] => urls.filter((u) => u.includes('/node_modules/@kubernetes/client-node/'));

describe('importing rxfleet', () => {
  it('has been built', () => {
    expect(existsSync(join(root, 'dist', 'index.js')), 'run `npm run build` first').toBe(true);
  });

  it('loads rxfleet itself (the hook sees the imports)', () => {
    expect(modulesLoaded(['rxfleet']).some((u) => u.endsWith('/dist/index.js'))).toBe(true);
  });

  it('does not load @kubernetes/client-node from any entry point', () => {
    expect(clientNode(modulesLoaded(entries))).toEqual([]);
  });

  it('does not load it to read a kubeconfig and build a client, with a token or an exec plugin', () => {
    const yaml = (user: string) =>
      `{"apiVersion":"v1","kind":"Config","current-context":"c","clusters":[{"name":"c","cluster":{"server":"https://127.0.0.1:1"}}],"contexts":[{"name":"c","context":{"cluster":"c","user":"u"}}],"users":[{"name":"u","user":${user}}]}`;
    const after = `
const { createClusterClient } = await import('rxfleet/client');
const { clusterName, isLeft } = await import('rxfleet');
for (const user of ${JSON.stringify([yaml('{"token":"t"}'), yaml('{"exec":{"command":"true"}}')])}) {
  const c = createClusterClient(clusterName('c'), { yaml: user });
  if (isLeft(c)) throw new Error(c.left.message);
  c.right.close();
}`;
    expect(clientNode(modulesLoaded(['rxfleet/client'], after))).toEqual([]);
  });

  it('does not load prom-client before a controller runs (rxfleet/runtime exports the metrics helpers built on it)', () => {
    const promClient = (urls: readonly string[]): string[] => urls.filter((u) => u.includes('/node_modules/prom-client/'));
    expect(promClient(modulesLoaded(entries.filter((e) => e !== 'rxfleet/runtime')))).toEqual([]);
    // The probe: the hook sees prom-client where it is loaded.
    expect(promClient(modulesLoaded(['rxfleet/runtime'])).length).toBeGreaterThan(0);
  });

  it("does not load Node's bundled undici from any entry point", () => {
    const { internals } = loaded(entries);
    // The probe: the list names Node's internal modules, and node:http is among them.
    expect(internals).toContain('NativeModule http');
    expect(internals.filter((m) => m.includes('undici'))).toEqual([]);
  });
});
