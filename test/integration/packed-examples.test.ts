// The examples the package ships are code a user copies: packed with `npm pack`, installed from the
// tarball into a fresh project (with the repository's TypeScript and @types/node), copied out of
// node_modules the way a user would copy one, and type-checked there against the packed
// declaration files, strictly (skipLibCheck: false) — so an example that imports something the
// package does not export, or a path outside it, fails here.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/binaries.js';
import { step } from '../support/child-step.js';

const work = mkdtempSync(join(tmpdir(), 'rxfleet-packed-examples-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

/** Every .ts file under `dir`. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? tsFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

describe('the shipped examples', () => {
  it('type-check against the packed package, copied into a project that installed it', () => {
    expect(existsSync(join(repoRoot, 'dist', 'index.d.ts')), 'run `npm run build` first').toBe(true);
    step('npm pack', 'npm', ['pack', '--pack-destination', work, '--silent'], repoRoot);
    const tarball = `rxfleet-${root.version}.tgz`;
    expect(existsSync(join(work, tarball))).toBe(true);

    const project = join(work, 'user');
    mkdirSync(project);
    const dev = (name: string): string => root.devDependencies[name] ?? 'latest';
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user', private: true, type: 'module', dependencies: { rxfleet: `file:../${tarball}`, rxjs: dev('rxjs') }, devDependencies: { typescript: dev('typescript'), '@types/node': dev('@types/node') } }, null, 2),
    );
    step('npm install', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project);

    // What the package ships under examples/, copied out as a user copies an example.
    const shipped = join(project, 'node_modules', 'rxfleet', 'examples');
    const files = tsFiles(shipped);
    expect(files.length).toBeGreaterThan(10);
    cpSync(shipped, join(project, 'examples'), { recursive: true });
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true,
          exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, verbatimModuleSyntax: true, skipLibCheck: false, noEmit: true,
        },
        include: ['examples/**/*.ts'],
      }, null, 2),
    );
    step('tsc (skipLibCheck: false)', process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
  });
});
