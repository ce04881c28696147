// The published types compile in a user's project that checks every declaration file
// (`skipLibCheck: false`): a consumer importing every entry point of dist/ is type-checked the way
// a user's tsc would see it (the package resolved through node_modules/rxfleet, its exports map).
// This caught client-node's types leaking into ours and, through them, isomorphic-ws needing @types/ws.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'rxfleet-consumer-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every importable subpath of the package: the exports map, with `providers/*` expanded from dist/. */
function entryPoints(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const providers = readdirSync(join(root, 'dist', 'providers'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'internal' && existsSync(join(root, 'dist', 'providers', d.name, 'index.d.ts')))
    .map((d) => `rxfleet/providers/${d.name}`);
  const plain = Object.entries(pkg.exports)
    .filter(([path, target]) => target !== null && !path.includes('*') && path !== './package.json')
    .map(([path]) => (path === '.' ? 'rxfleet' : `rxfleet/${path.slice(2)}`));
  return [...plain, ...providers];
}

describe('the published types', () => {
  it('type-check in a consumer with skipLibCheck: false', () => {
    expect(existsSync(join(root, 'dist', 'index.d.ts')), 'run `npm run build` first').toBe(true);
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'rxfleet'), 'dir');
    const entries = entryPoints();
    expect(entries).toEqual(expect.arrayContaining(['rxfleet', 'rxfleet/envtest', 'rxfleet/testing', 'rxfleet/providers/kcp']));
    const source = [
      ...entries.map((e, i) => `import * as m${i} from '${e}';`),
      `export const all = [${entries.map((_e, i) => `m${i}`).join(', ')}];`,
      // A use of a public generic, so that the check is not only of declarations.
      `export const cm: m0.ConfigMap = { metadata: { name: 'x' }, data: { a: 'b' } };`,
      '',
    ].join('\n');
    const file = join(dir, 'consumer.ts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      target: ts.ScriptTarget.ES2023,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file === undefined ? '' : `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: `;
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
    // Checking every declaration file of the dependencies takes tens of seconds on two busy cores.
  }, 180_000);
});
