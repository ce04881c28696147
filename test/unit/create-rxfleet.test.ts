// create-rxfleet, the bin `npm create rxfleet@latest <dir>` runs: `rxfleet init` of @rxfleet/cli
// with the same arguments, and a usage line without any. Runs the built bins (npm test builds first);
// the packed packages are tried end to end by test/integration/new-user.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'packages', 'create-rxfleet', 'dist', 'bin.js');
const dir = mkdtempSync(join(tmpdir(), 'rxfleet-create-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function create(args: readonly string[]) {
  return spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

describe('npm create rxfleet', () => {
  it('has been built (npm test builds before it tests)', () => {
    expect(existsSync(bin), 'run `npm run build` first').toBe(true);
  });

  it("writes the project with @rxfleet/cli's init, passing the options on", () => {
    const r = create(['greeter', '--name', 'hello-fleet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`files into ${join(dir, 'greeter')}:`);
    expect(existsSync(join(dir, 'greeter', 'src', 'controller.ts'))).toBe(true);
    const made = JSON.parse(readFileSync(join(dir, 'greeter', 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(made.name).toBe('hello-fleet');
    expect(Object.keys(made.dependencies)).toEqual(['rxfleet', 'rxjs']);
    expect(made.devDependencies).toHaveProperty('@rxfleet/cli');
  });

  it('says how to use it when given no folder, and refuses a bad name as init does (exit 2)', () => {
    const none = create([]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^usage: npm create rxfleet@latest <dir>/);
    const bad = create(['My_App']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('rxfleet: project name "My_App"');
  });
});
