// An unsupported Node fails at import with one clear sentence, before anything of rxfleet loads
// (issue 16: Node 20 used to crash deep in undici). Runs the built package (dist/) in a system
// Node older than 22.19 when the machine has one (this one has Node 20 in /usr/bin), else in the
// current Node with process.versions.node made to say 20.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function tooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}

/** The first `node` on PATH (outside node_modules, where npm puts the pinned Node 24) that is older than 22.19. */
function oldSystemNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    const v = existsSync(candidate) ? versionOf(candidate) : undefined;
    if (v !== undefined && tooOld(v)) return candidate;
  }
  return undefined;
}

// Makes the current Node report 20.20.2 before the package loads, for machines without an old Node.
const FAKE_OLD = `data:text/javascript,Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });`;

function importIn(specifier: string): { status: number | null; stderr: string; version: string } {
  const old = oldSystemNode();
  const args = ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)});`];
  const res =
    old === undefined
      ? spawnSync(process.execPath, ['--import', FAKE_OLD, ...args], { cwd: root, encoding: 'utf8' })
      : spawnSync(old, args, { cwd: root, encoding: 'utf8' });
  return { status: res.status, stderr: res.stderr, version: old === undefined ? 'v20.20.2' : (versionOf(old) ?? '?') };
}

describe('on a Node older than 22.19', () => {
  it('has been built (the check runs the built package)', () => {
    expect(existsSync(join(root, 'dist', 'internal', 'require-node.js')), 'run `npm run build` first').toBe(true);
  });

  it.each(['rxfleet', 'rxfleet/streams', 'rxfleet/sinks', 'rxfleet/testing', 'rxfleet/envtest', 'rxfleet/providers/kcp'])(
    'import(%s) fails with "rxfleet needs Node ≥ 22.19; this is v20...", saying how to get Node 24',
    (specifier) => {
      const { status, stderr, version } = importIn(specifier);
      expect(status).not.toBe(0);
      expect(stderr).toContain(`rxfleet needs Node ≥ 22.19; this is ${version}`);
      // And how to get forward without changing the system's Node (issue 29): the npm `node`
      // package runs the npm scripts on Node 24; nvm reads a project's .nvmrc.
      expect(stderr).toContain('`npm install --save-dev node@24`');
      expect(stderr).toMatch(/nvm install 24.*\.nvmrc/);
      // The first error is ours, not a crash somewhere inside a dependency.
      expect(stderr).not.toMatch(/undici|SyntaxError|ERR_/);
    },
  );

  it('loads normally on this Node', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', `const m = await import('rxfleet'); console.log(typeof m.controller);`], { cwd: root, encoding: 'utf8' });
    expect(out.trim()).toBe('function');
  });
});
