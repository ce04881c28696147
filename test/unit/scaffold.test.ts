// `rxfleet init`'s templates (@rxfleet/cli): every placeholder filled, names checked, existing files kept. The
// scaffold itself is compiled and its tests run by test/integration/new-user.test.ts, and its
// manifests are validated on a real kube-apiserver by test/integration/deploy-manifests.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkProjectName, defaultScaffoldValues, scaffold } from '../../packages/cli/src/scaffold.js';
import { ConfigError } from '../../src/core/config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'rxfleet-scaffold-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const read = (dir: string) => JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', dir, 'package.json'), 'utf8')) as { version: string; peerDependencies: Record<string, string> };
const pkg = read('.');
const cli = read('packages/cli');

describe('rxfleet init', () => {
  it('writes the project with every placeholder filled, depending on this release of rxfleet, with @rxfleet/cli for development', () => {
    const project = join(dir, 'greeter');
    const written = scaffold(project, defaultScaffoldValues('greeter'));
    expect(written).toEqual(
      expect.arrayContaining(['.gitignore', '.dockerignore', 'Dockerfile', 'package.json', 'tsconfig.json', 'vitest.config.ts', 'src/main.ts',
        'src/controller.ts', 'test/controller.marble.test.ts', 'test/controller.integration.test.ts', 'test/global-setup.ts', 'deploy/kustomization.yaml']),
    );
    for (const f of written) expect(readFileSync(join(project, f), 'utf8'), f).not.toMatch(/\{\{\w+\}\}/);
    const made = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(made.name).toBe('greeter');
    expect(made.dependencies).toEqual({ rxfleet: `^${pkg.version}`, rxjs: pkg.peerDependencies.rxjs });
    // The command line is for development: a production install leaves it out.
    expect(made.devDependencies).toMatchObject({ '@rxfleet/cli': `^${cli.version}` });
    expect(made.devDependencies).not.toHaveProperty('rxfleet');
    // Not pino-pretty: rxfleet's optional peer, in a dev tree it would stay in `npm install --omit=dev` (npm keeps devOptional).
    expect(made.devDependencies).not.toHaveProperty('pino-pretty');
    expect(readFileSync(join(project, 'Dockerfile'), 'utf8')).toMatch(/FROM node:24-slim AS build[\s\S]*FROM node:24-slim[\s\S]*USER node/);
  });

  it('pins Node the way rxfleet does: the npm `node` package as a dev dependency, engines and .nvmrc', () => {
    const project = join(dir, 'pinned');
    scaffold(project, defaultScaffoldValues('pinned'));
    const made = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { engines: Record<string, string>; devDependencies: Record<string, string>; allowScripts: Record<string, boolean> };
    const own = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { engines: Record<string, string>; devDependencies: Record<string, string> };
    // npm puts node_modules/.bin first on the scripts' PATH: every npm script runs on this Node.
    expect(made.devDependencies.node).toBe(own.devDependencies.node);
    expect(made.allowScripts).toEqual({ node: true });
    expect(made.engines).toEqual(own.engines);
    expect(readFileSync(join(project, '.nvmrc'), 'utf8')).toBe(`${/\d+/.exec(own.devDependencies.node ?? '')?.[0] ?? '?'}\n`);
  });

  it('refuses to overwrite a file, naming it, unless forced', () => {
    const project = join(dir, 'taken');
    scaffold(project, defaultScaffoldValues('taken'));
    writeFileSync(join(project, 'src', 'main.ts'), '// mine\n');
    expect(() => scaffold(project, defaultScaffoldValues('taken'))).toThrow(ConfigError);
    expect(() => scaffold(project, defaultScaffoldValues('taken'))).toThrow(/already has .*src\/main\.ts/);
    expect(readFileSync(join(project, 'src', 'main.ts'), 'utf8')).toBe('// mine\n');
    scaffold(project, defaultScaffoldValues('taken'), { force: true });
    expect(readFileSync(join(project, 'src', 'main.ts'), 'utf8')).not.toBe('// mine\n');
  });

  it.each(['My_App', '9lives', 'trailing-', 'x'.repeat(54), ''])('refuses the project name %j (it names a namespace and objects)', (name) => {
    expect(() => {
      checkProjectName(name);
    }).toThrow(ConfigError);
  });

  it.each(['greeter', 'fleet-sync-2', 'a'])('accepts the project name %j', (name) => {
    expect(() => {
      checkProjectName(name);
    }).not.toThrow();
  });
});
