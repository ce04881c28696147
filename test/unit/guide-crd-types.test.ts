// The guide's "Types from your CRD" is a project you could copy: its TypeScript blocks, each placed
// at the path its first line names, type-check together with the crd-types example's generated
// widget-v1.ts as src/generated/widget-v1.ts (what `gen types` writes for that CRD).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, typeErrors } from './type-check-support.js';

const section = (doc: string, heading: string): string => {
  const at = doc.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const next = doc.indexOf('\n## ', at + heading.length + 1);
  return doc.slice(at, next < 0 ? undefined : next);
};

describe('the guide\'s "Types from your CRD"', () => {
  const text = section(readFileSync(join(repoRoot, 'docs', 'guide.md'), 'utf8'), '## Types from your CRD');
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

  it('type-checks as the project its blocks name: the controller, the global setup, the test', { timeout: 120_000 }, () => {
    const dir = '.guide-crd-types';
    const files: Record<string, string> = { [`${dir}/src/generated/widget-v1.ts`]: readFileSync(join(repoRoot, 'examples', 'crd-types', 'widget-v1.ts'), 'utf8') };
    for (const code of blocks) {
      const path = /^\/\/ (\S+\.ts)\n/.exec(code)?.[1];
      expect(path, `a block's first line names its file:\n${code.slice(0, 80)}`).toBeDefined();
      files[`${dir}/${path ?? ''}`] = code;
    }
    expect(Object.keys(files).sort()).toEqual([`${dir}/src/generated/widget-v1.ts`, `${dir}/src/widget-controller.ts`, `${dir}/test/global-setup.ts`, `${dir}/test/widgets.integration.test.ts`]);
    expect(typeErrors(files)).toEqual([]);
  });
});
