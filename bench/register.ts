// Lets `node` run the TypeScript sources directly (Node ≥ 22.18 strips types): source imports
// name `.js` files, so a missing `.js` is retried as `.ts`; and the package's own name means its
// sources, as tsconfig.json's `paths` and vitest.config.ts's alias say (`rxfleet` → src/index.ts,
// `rxfleet/<entry>` → src/<entry>/index.ts), so the workspace packages (packages/cli) run on the
// same sources. Used by the bench scripts, and by the sync agent's end-to-end test to run the CLI
// from source.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';

const src = new URL('../src/', import.meta.url);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const own = /^rxfleet(?:\/(.+))?$/.exec(specifier);
    if (own !== null) {
      const url = new URL(`${own[1] ?? '.'}/index.ts`, src);
      if (existsSync(url)) return { url: url.href, shortCircuit: true };
    }
    try {
      return nextResolve(specifier, context);
    } catch (err) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw err;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
