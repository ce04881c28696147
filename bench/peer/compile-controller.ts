// The rxfleet controller as a deployed one runs: plain JavaScript on the built package (dist/).
// Running bench/peer/rxfleet-controller.ts itself would charge rxfleet for what no deployment
// pays: Node's type stripper (amaro, ~17 MiB RSS and ~70 ms at start for a .ts entry point), and,
// through bench/register.ts, the stripping of every source module (~34 MiB and ~0.4 s more).
// So the driver strips the controller's types once, points its `src/` imports at `dist/` (absolute
// paths, which Node and the bundler both resolve), and runs the result with no loader hooks.
// `npm run bench:peer` builds dist/ first.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Writes the controller as JavaScript importing dist/ into `dir`, and returns its path.
 *
 * @param source - the controller's TypeScript file (imports `../../src/…`).
 * @param dir - where to write it.
 * @returns the path of the JavaScript file.
 * @throws Error when dist/ is missing or older than the sources it would stand for.
 */
export function compileController(source: string, dir: string): string {
  const distIndex = join(ROOT, 'dist', 'index.js');
  if (!existsSync(distIndex)) throw new Error(`bench:peer: ${distIndex} is missing; run \`npm run build\``);
  const dist = join(ROOT, 'dist');
  const ts = readFileSync(source, 'utf8');
  const js = stripTypeScriptTypes(ts).replaceAll(`'../../src/`, `'${dist}/`);
  if (js.includes('../../src/')) throw new Error(`bench:peer: ${source} imports src/ in a form the driver does not rewrite`);
  const src = join(ROOT, 'src');
  const newest = Math.max(...readdirSync(src, { recursive: true, encoding: 'utf8' }).map((f) => statSync(join(src, f)).mtimeMs));
  if (statSync(distIndex).mtimeMs < newest) throw new Error('bench:peer: dist/ is older than src/; run `npm run build`');
  const out = join(dir, 'rxfleet-controller.mjs');
  writeFileSync(out, js);
  return out;
}
