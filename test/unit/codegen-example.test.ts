// The crd-types example's generated files are what `rxfleet gen types` makes of its CRD today:
// regenerate and compare, so the committed types never drift from the generator or the CRD.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes, readCrds } from '../../packages/cli/src/codegen/index.js';
import { repoRoot } from './type-check-support.js';

const dir = join(repoRoot, 'examples', 'crd-types');

describe('examples/crd-types', () => {
  it('commits exactly what `rxfleet gen types widget-crd.yaml` writes (importing from rxfleet, as a user\'s files do)', async () => {
    const files = await generateTypes({
      crds: readCrds(readFileSync(join(dir, 'widget-crd.yaml'), 'utf8'), 'widget-crd.yaml'),
      from: 'widget-crd.yaml',
    });
    expect(files.map((f) => f.path)).toEqual(['widget-v1.ts', 'widget-v1alpha1.ts']);
    const committed = readdirSync(dir).filter((f) => /^widget-.*\.ts$/.test(f)).sort();
    expect(committed).toEqual(files.map((f) => f.path).sort());
    for (const f of files) {
      expect(readFileSync(join(dir, f.path), 'utf8'), `${f.path} is stale: run npx rxfleet gen types examples/crd-types/widget-crd.yaml --out examples/crd-types`).toBe(f.text);
    }
  });
});
