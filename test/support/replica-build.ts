// examples/ha compiled for the HA tests and benchmark: once per test file, into a directory of its
// own, so files running at the same time never share (half-written) output.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './binaries.js';

const exec = promisify(execFile);

/**
 * Throws unless the package is built: the examples import `rxfleet`, which resolves (package.json
 * `exports`) to dist/, so they compile against and run on the built package, not the sources.
 *
 * @example
 * ```ts
 * assertPackageBuilt(); // before tsc -p tsconfig.examples.json
 * ```
 */
export function assertPackageBuilt(): void {
  if (!existsSync(join(repoRoot, 'dist', 'index.d.ts'))) {
    throw new Error('the examples import rxfleet, which resolves to dist/: run `npm run build` first (`npm test` does)');
  }
}

/** The compiled example, in a directory of its own. */
export interface ReplicaBuild {
  /** Path of the compiled examples/ha/main.js. */
  readonly main: string;
  /** Removes the directory. */
  remove(): void;
}

/**
 * Compiles examples/ha, or another replica program with a main.ts that takes its flags (a test
 * fixture), against the built package (see {@link assertPackageBuilt}) into a fresh directory under dist-demo/, so
 * test files running at the same time never read each other's half-written output (they would,
 * sharing dist-demo/examples). Under the repository, so `node` finds node_modules and
 * package.json's `"type": "module"`. Fails, with the compiler's output, on any type error.
 *
 * @example
 * const build = await buildReplicaExample();
 * afterAll(() => build.remove());
 */
export async function buildReplicaExample(program = 'examples/ha'): Promise<ReplicaBuild> {
  assertPackageBuilt();
  const dir = join(repoRoot, 'dist-demo', `ha-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'tsconfig.json');
  writeFileSync(config, JSON.stringify({ extends: '../../tsconfig.examples.json', compilerOptions: { rootDir: '../..', outDir: '.' }, include: [`../../${program}/**/*.ts`] }));
  try {
    await exec(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], { cwd: repoRoot });
  } catch (err) {
    const out = typeof err === 'object' && err !== null && 'stdout' in err ? String(err.stdout) : String(err);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${program} does not compile:\n${out.slice(0, 4000)}`, { cause: err });
  }
  return { main: join(dir, ...program.split('/'), 'main.js'), remove: () => { rmSync(dir, { recursive: true, force: true }); } };
}
