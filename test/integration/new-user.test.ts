// What a new user does, on the packed package: `npm pack` the build, `rxfleet init` a project from
// the tarball, install it, generate types from a CRD with `rxfleet gen types`, type-check the
// project (skipLibCheck: false), and run the scaffold's marble test and its rxfleet/envtest
// integration test (a real kube-apiserver + etcd from the binary cache). Every step runs in a child
// process on this Node, the way a user's shell would, and its output is kept for the failure message.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/binaries.js';

const work = mkdtempSync(join(tmpdir(), 'rxfleet-new-user-'));
const project = join(work, 'greeter');
// Every child runs on this Node (24), also npm and the package's bin (their `#!/usr/bin/env node`).
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', CI: '1' };

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Runs one step; returns its output, or throws with the command and the output's tail. */
function step(what: string, command: string, args: readonly string[], cwd: string): string {
  const res = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) {
    throw new Error(`${what} failed (${command} ${args.join(' ')}; exit ${res.status} ${res.signal ?? ''}${res.error === undefined ? '' : `; ${res.error.message}`}):\n${out.slice(-4000)}`);
  }
  return out;
}

describe('a new user, from the packed package to tested code', () => {
  it('packs, scaffolds, installs, generates types, and passes the scaffold\'s marble and envtest integration tests', () => {
    expect(existsSync(join(repoRoot, 'dist', 'cli', 'bin.js')), 'run `npm run build` first').toBe(true);

    // 1. The tarball npm would publish (the `files` allow-list decides what is in it).
    step('npm pack', 'npm', ['pack', '--pack-destination', work, '--silent'], repoRoot);
    const tarball = readdirSync(work).find((f) => f.startsWith('rxfleet-') && f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const tgz = join(work, tarball ?? '');

    // 2. `npx rxfleet init greeter`, the CLI run from the tarball (npm exec installs it).
    const init = step('rxfleet init', 'npm', ['exec', '--yes', `--package=${tgz}`, '--', 'rxfleet', 'init', 'greeter', '--rxfleet', `file:../${tarball ?? ''}`], work);
    expect(init).toContain('wrote');
    for (const f of ['package.json', 'src/main.ts', 'Dockerfile', 'deploy/kustomization.yaml', 'test/controller.marble.test.ts']) {
      expect(existsSync(join(project, f)), f).toBe(true);
    }

    // 3. Install: rxfleet from the tarball, the rest from the registry.
    step('npm install', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project);
    expect(JSON.parse(readFileSync(join(project, 'node_modules', 'rxfleet', 'package.json'), 'utf8'))).toMatchObject({ name: 'rxfleet' });

    // 4. Types from a CRD, written into the project's sources (so step 5 type-checks them too).
    const crd = join(project, 'node_modules', 'rxfleet', 'examples', 'crd-types', 'widget-crd.yaml');
    step('rxfleet gen types', join(project, 'node_modules', '.bin', 'rxfleet'), ['gen', 'types', crd, '--out', 'src/generated'], project);
    expect(readdirSync(join(project, 'src', 'generated')).sort()).toEqual(expect.arrayContaining(['widget-v1.ts']));

    // 5. The project compiles against the published types, every declaration file checked.
    step('tsc (skipLibCheck: false)', process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], project);

    // 6. Its marble test, then its integration test on rxfleet/envtest (cached binaries).
    const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs');
    const marbles = step('marble test', process.execPath, [vitest, 'run', '--project', 'marbles'], project);
    expect(marbles).toMatch(/Tests\s+3 passed/);
    const integration = step('envtest integration test', process.execPath, [vitest, 'run', '--project', 'integration'], project);
    expect(integration).toMatch(/Tests\s+1 passed/);
  }, 600_000);
});
