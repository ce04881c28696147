// What a new user does, on the packed packages: `npm pack` every package of the repository (rxfleet,
// @rxfleet/cli, create-rxfleet, @rxfleet/sync-agent), `npm create rxfleet` a project from the
// packed create-rxfleet, install it, generate types from a CRD with `rxfleet gen types` (the dev dependency @rxfleet/cli),
// type-check the project (skipLibCheck: false), run the scaffold's marble test and its
// rxfleet/envtest integration test (a real kube-apiserver + etcd from the binary cache), and measure
// what a controller carries in production (`npm install --omit=dev`): at most 40 MB, and no
// command-line, code-generation or pretty-printing package. Every step runs in a child process on
// this Node, the way a user's shell would, and its output is kept for the failure message. Last,
// the sync agent installed as its Dockerfile installs it (production dependencies only) starts.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/binaries.js';

const work = mkdtempSync(join(tmpdir(), 'rxfleet-new-user-'));
const project = join(work, 'greeter');
// Every child runs on this Node (24), also npm and the packages' bins (their `#!/usr/bin/env node`).
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', CI: '1' };
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
/** The packages a controller does not run: the CLI, code generation, pretty printing, client-node. */
const devOnly = ['@rxfleet/cli', 'yargs', 'json-schema-to-typescript', 'prettier', 'pino-pretty', '@kubernetes/client-node'];
const goalBytes = 40_000_000;

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

/** What `npm install --omit=dev` of the project's package.json and lock puts in node_modules: bytes (du -sb) and packages. */
function productionInstall(): { bytes: number; packages: string[] } {
  const dir = join(work, 'greeter-production');
  mkdirSync(dir);
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(project, f), join(dir, f));
  step('npm install --omit=dev', 'npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  const bytes = Number(step('du -sb', 'du', ['-sb', 'node_modules'], dir).split(/\s/)[0]);
  // npm's record of what it installed: one entry per package folder, nested copies included.
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return { bytes, packages: Object.keys(lock.packages).map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length)) };
}

describe('a new user, from the packed packages to tested code and a production install', () => {
  it("packs, runs npm create, installs, generates types, passes the scaffold's tests, and installs for production within 40 MB", () => {
    for (const bin of ['dist/index.js', 'packages/cli/dist/bin.js', 'packages/create-rxfleet/dist/bin.js', 'packages/sync-agent/dist/bin.js']) {
      expect(existsSync(join(repoRoot, bin)), `${bin}: run \`npm run build\` first`).toBe(true);
    }

    // 1. The tarballs npm would publish (each package's `files` allow-list decides what is in it).
    step('npm pack', 'npm', ['pack', '--workspaces', '--include-workspace-root', '--pack-destination', work, '--silent'], repoRoot);
    const [rxfleet, cli, create, agent] = [`rxfleet-${version}.tgz`, `rxfleet-cli-${version}.tgz`, `create-rxfleet-${version}.tgz`, `rxfleet-sync-agent-${version}.tgz`];
    expect(readdirSync(work).sort()).toEqual([create, rxfleet, cli, agent].sort());

    // 2. `npm create rxfleet@latest greeter` is `npm exec create-rxfleet greeter`. This release is not
    // on the registry, so the exec installs create-rxfleet with the @rxfleet/cli it depends on and the
    // rxfleet that is the CLI's peer, all three packed; the project is pointed at the same tarballs.
    const init = step('npm create rxfleet', 'npm', [
      'exec', '--yes', `--package=${join(work, create)}`, `--package=${join(work, cli)}`, `--package=${join(work, rxfleet)}`,
      '--', 'create-rxfleet', 'greeter', '--rxfleet', `file:../${rxfleet}`, '--cli', `file:../${cli}`,
    ], work);
    expect(init).toContain('wrote');
    for (const f of ['package.json', 'src/main.ts', 'Dockerfile', 'deploy/kustomization.yaml', 'test/controller.marble.test.ts']) {
      expect(existsSync(join(project, f)), f).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(manifest.dependencies.rxfleet).toBe(`file:../${rxfleet}`);
    expect(manifest.devDependencies['@rxfleet/cli']).toBe(`file:../${cli}`);

    // 3. Install: rxfleet and @rxfleet/cli from the tarballs, the rest from the registry.
    step('npm install', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project);
    expect(JSON.parse(readFileSync(join(project, 'node_modules', 'rxfleet', 'package.json'), 'utf8'))).toMatchObject({ name: 'rxfleet', version });

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
    // A green run prints no controller log lines below warning (the scaffold's vitest config sets LOG_LEVEL).
    expect(`${marbles}\n${integration}`).not.toMatch(/"level":(10|20|30)\b/);

    // 7. What the controller carries in production. Before the packages were split: 141 MB (du -sh),
    // 112 MB (du -sb), 129 packages, @kubernetes/client-node alone 56 MB.
    const prod = productionInstall();
    console.log(`production install of the scaffold: ${prod.bytes} bytes (du -sb), ${prod.packages.length} packages`);
    expect(prod.packages).toEqual(expect.arrayContaining(['rxfleet', 'rxjs']));
    expect(prod.packages.filter((p) => devOnly.includes(p))).toEqual([]);
    expect(prod.bytes).toBeLessThanOrEqual(goalBytes);

    // 8. The sync agent as its container recipe installs it (packages/sync-agent/Dockerfile): the
    // two tarballs, production dependencies only; its bin starts and answers --help.
    const agentDir = join(work, 'agent');
    mkdirSync(agentDir);
    step('npm init (agent)', 'npm', ['init', '-y'], agentDir);
    step('npm install (agent)', 'npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', join(work, rxfleet), join(work, agent)], agentDir);
    const help = step('rxfleet-sync-agent --help', join(agentDir, 'node_modules', '.bin', 'rxfleet-sync-agent'), ['--help'], agentDir);
    expect(help).toContain('rxfleet-sync-agent --config <file>');
    const installed = readdirSync(join(agentDir, 'node_modules', '@rxfleet'));
    expect(installed).toEqual(['sync-agent']);
  }, 900_000);
});
