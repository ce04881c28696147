// The twenty-line controller shown in the README and the guide is examples/hello/main.ts, which CI
// compiles and runs against real servers; these checks fail when the copies drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (p: string): string => readFileSync(join(root, p), 'utf8');

/** The first ```ts block after `heading`. */
function snippetAfter(doc: string, heading: string): string {
  const at = doc.indexOf(heading);
  expect(at, `heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const m = /```ts\n([\s\S]*?)```/.exec(doc.slice(at));
  expect(m, `a ts block after "${heading}"`).not.toBeNull();
  return m?.[1] ?? '';
}

/** Code lines without imports and comments: what must be identical. */
function body(code: string): string[] {
  return code
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('import ') && !l.startsWith('//'));
}

/** The names each import brings in, per module (the example imports the package as the docs do). */
function imports(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/^import (?:type )?\{([^}]*)\} from '([^']+)';$/gm)) {
    const names = (m[1] ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
    for (const n of names) out.push(`${m[2] ?? ''}:${n}`);
  }
  return out.sort();
}

describe('the twenty-line controller in the docs', () => {
  const example = read('examples/hello/main.ts');

  it.each([
    ['README.md', '## A controller in twenty lines'],
    ['docs/guide.md', '## A controller in twenty lines'],
  ])('in %s is examples/hello/main.ts with the published import paths', (file, heading) => {
    const snippet = snippetAfter(read(file), heading);
    expect(body(snippet)).toEqual(body(example));
    expect(imports(snippet)).toEqual(imports(example));
    expect(body(snippet).length + imports(snippet).length).toBeGreaterThan(10);
  });
});
