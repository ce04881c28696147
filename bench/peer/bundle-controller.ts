// The rxfleet controller as the scaffold deploys it (issue 26 item 4): one bundled ES module, built
// with the scaffold's own bundler configuration (packages/cli/templates/init/rolldown.config.mjs.tmpl,
// which `npm run bundle` of a new project runs), so the column measures what a user's image runs.
// The compiled controller (compile-controller.ts: JavaScript importing dist/, as a user's program
// imports node_modules/rxfleet/dist) is the entry; only its input and output folder differ from the
// template's.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RolldownOptions } from 'rolldown';
import { build } from 'rolldown';

const TEMPLATE = fileURLToPath(new URL('../../packages/cli/templates/init/rolldown.config.mjs.tmpl', import.meta.url));

/**
 * Bundles `entry` (a compiled controller) into `<dir>/bundle/rxfleet-controller.mjs` with the
 * scaffold's configuration, and returns that path.
 *
 * @example
 * const bundle = await bundleController(compileController(source, dir), dir);
 */
export async function bundleController(entry: string, dir: string): Promise<string> {
  // The template has no placeholders: it is the file a new project gets. Imported from a copy
  // with a name Node loads as an ES module.
  const config = join(dir, 'rolldown.config.mjs');
  copyFileSync(TEMPLATE, config);
  const mod = (await import(pathToFileURL(config).href)) as { default: readonly RolldownOptions[] };
  const [scaffold] = mod.default;
  if (scaffold === undefined || Array.isArray(scaffold.output)) throw new Error(`bench:peer: ${TEMPLATE} exports no single-output configuration`);
  const outDir = join(dir, 'bundle');
  await build({ ...scaffold, input: { 'rxfleet-controller': entry }, output: { ...scaffold.output, dir: outDir }, logLevel: 'warn' });
  return join(outDir, 'rxfleet-controller.mjs');
}

const DOCKERFILE = fileURLToPath(new URL('../../packages/cli/templates/init/Dockerfile.tmpl', import.meta.url));

/**
 * The environment the scaffold's image sets for its controller (the `ENV` lines of its Dockerfile
 * template: `NODE_ENV`, `NODE_COMPILE_CACHE`), so the bundle column runs as the image does.
 *
 * @example
 * const env = imageEnv(); // { NODE_ENV: 'production', NODE_COMPILE_CACHE: '/app/.node-compile-cache' }
 */
export function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of readFileSync(DOCKERFILE, 'utf8').matchAll(/^ENV ([A-Z_][A-Z0-9_]*)=(\S+)$/gm)) {
    const [, name, value] = m;
    if (name !== undefined && value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Makes V8's compile cache of `bundle` as the scaffold's image does at build time (one run that
 * stops at the configuration check: here the bench controller with an empty kubeconfig folder),
 * in `<dir>/compile-cache`, and returns the environment that points the bundle's runs at it (in place
 * of the image's path).
 *
 * @example
 * const env = { ...imageEnv(), ...warmCompileCache(bundle, dir) };
 */
export function warmCompileCache(bundle: string, dir: string): Record<string, string> {
  const cache = join(dir, 'compile-cache');
  const empty = join(dir, 'compile-cache-empty');
  mkdirSync(cache, { recursive: true });
  mkdirSync(empty, { recursive: true });
  const env = { NODE_COMPILE_CACHE: cache };
  const run = spawnSync(process.execPath, [bundle, 'file', empty], { env: { ...process.env, ...imageEnv(), ...env }, stdio: 'ignore', timeout: 60_000 });
  if (run.status !== 2 || readdirSync(cache, { recursive: true }).length === 0) throw new Error(`bench:peer: the bundle's compile cache was not made (exit ${String(run.status)}, ${cache})`);
  return env;
}
