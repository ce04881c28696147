// Loads the module `rxfleet rbac` is pointed at and collects its controllers without running them:
// what it exports (`export default controller(...)`, `export const controllers = [...]`) and what
// it hands to `main(...)` while loading (main runs nothing then: see runtime/declarations.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from 'rxfleet';
import type { Declaration, DeclaredController } from 'rxfleet/runtime';
import { captureDeclarations } from 'rxfleet/runtime';

function isController(v: unknown): v is DeclaredController {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as { name?: unknown; resource?: unknown; reconcile?: unknown };
  return typeof c.name === 'string' && typeof c.resource === 'object' && c.resource !== null && typeof c.reconcile === 'function';
}

const typescript = /\.([cm]?)tsx?$/;

// Where the compiled module of a TypeScript entry would be: `src/main.ts` → `dist/main.js`, else beside it.
function builtModuleOf(file: string): string {
  const js = file.replace(typescript, (_m, flavour: string) => `.${flavour}js`);
  const inDist = js.replace(/(^|\/)src\/(?!.*\/src\/)/, '$1dist/');
  return existsSync(inDist) || !existsSync(js) ? inDist : js;
}

/**
 * Why a module did not load, saying how to proceed when it is TypeScript that was not built: a
 * `.ts` entry Node loads by stripping its types, whose imports (`./backup.js`, as TypeScript
 * writes them) exist only as `.ts`; or a missing `.js` whose `.ts` is beside it.
 */
function loadFailure(file: string, path: string, err: unknown): unknown {
  const e = err as { code?: unknown; url?: unknown; message?: unknown };
  if (e.code !== 'ERR_MODULE_NOT_FOUND' && e.code !== 'ERR_UNKNOWN_FILE_EXTENSION') return err;
  const missing = typeof e.url === 'string' && e.url.startsWith('file:') ? fileURLToPath(e.url) : undefined;
  const unbuilt = missing !== undefined && /\.[cm]?js$/.test(missing) && existsSync(missing.replace(/js$/, 'ts')) ? missing : undefined;
  // A package that is not installed is not a build problem: Node's own error says it.
  const fileMissing = missing !== undefined || e.code === 'ERR_UNKNOWN_FILE_EXTENSION';
  if (unbuilt === undefined && !(typescript.test(path) && fileMissing)) return err;
  const cause = unbuilt === undefined ? String(e.message).split('\n')[0] : `${unbuilt} does not exist, only its TypeScript ${unbuilt.replace(/js$/, 'ts')}`;
  const built = typescript.test(path) ? builtModuleOf(file) : undefined;
  const next =
    built === undefined
      ? 'Build the project first (npm run build), then run rbac again'
      : existsSync(built)
        ? `Give the built JavaScript: rxfleet rbac ${built}`
        : `Build the project first (npm run build), then give the built JavaScript, e.g. rxfleet rbac ${built}`;
  return new ConfigError(`rbac: ${path} cannot be loaded: ${cause}. ${next}`);
}

/**
 * Imports `file` with `process.argv` set to `[node, file, ...args]` (a program reading its own
 * arguments sees `args`), and returns its controllers: the default export when it is a
 * controller, every controller in an exported `controllers` array, and every controller the
 * module passed to `main` while loading (with its `replicas` namespace). The same controller found
 * twice counts once.
 *
 * @example
 * ```ts
 * const declared = await loadControllers('dist/main.js', ['--cluster', 'hub=/etc/hub.kubeconfig']);
 * ```
 * @param file - the module's path (compiled JavaScript, or TypeScript where the runtime loads it).
 * @param args - the arguments the module sees.
 * @returns the declarations.
 * @throws ConfigError when the file does not exist, declares no controller, or is TypeScript whose
 * imports are not built (saying to build first, or which built module to give).
 */
export async function loadControllers(file: string, args: readonly string[] = []): Promise<readonly Declaration[]> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError(`rbac: ${path} does not exist; give the module that declares the controller (e.g. dist/main.js)`);
  const saved = process.argv;
  process.argv = [saved[0] ?? process.execPath, path, ...args];
  let loaded: { result: Record<string, unknown>; declared: readonly Declaration[] };
  try {
    loaded = await captureDeclarations(async () => (await import(pathToFileURL(path).href)) as Record<string, unknown>);
  } catch (err) {
    throw loadFailure(file, path, err);
  } finally {
    process.argv = saved;
  }
  const exported: unknown[] = [loaded.result.default, ...(Array.isArray(loaded.result.controllers) ? (loaded.result.controllers as unknown[]) : [])];
  const out: Declaration[] = [...loaded.declared];
  for (const c of exported) if (isController(c) && !out.some((d) => d.controller === c)) out.push({ controller: c });
  if (out.length === 0) {
    throw new ConfigError(
      `rbac: ${path} declares no controller; export one (\`export default controller({...})\` or \`export const controllers = [...]\`) or call \`main(controller({...}))\` in it`,
    );
  }
  return out;
}
