// Loads the module `rxfleet rbac` is pointed at and collects its controllers without running them:
// what it exports (`export default controller(...)`, `export const controllers = [...]`) and what
// it hands to `main(...)` while loading (main runs nothing then: see runtime/declarations.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from 'rxfleet';
import type { Declaration, DeclaredController } from 'rxfleet/runtime';
import { captureDeclarations } from 'rxfleet/runtime';

function isController(v: unknown): v is DeclaredController {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as { name?: unknown; resource?: unknown; reconcile?: unknown };
  return typeof c.name === 'string' && typeof c.resource === 'object' && c.resource !== null && typeof c.reconcile === 'function';
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
 * @throws ConfigError when the file does not exist or declares no controller.
 */
export async function loadControllers(file: string, args: readonly string[] = []): Promise<readonly Declaration[]> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError(`rbac: ${path} does not exist; give the module that declares the controller (e.g. dist/main.js)`);
  const saved = process.argv;
  process.argv = [saved[0] ?? process.execPath, path, ...args];
  let loaded: { result: Record<string, unknown>; declared: readonly Declaration[] };
  try {
    loaded = await captureDeclarations(async () => (await import(pathToFileURL(path).href)) as Record<string, unknown>);
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
