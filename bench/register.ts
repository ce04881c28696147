// Lets `node` run the TypeScript sources directly (Node ≥ 22.18 strips types): source imports
// name `.js` files, so a missing `.js` is retried as `.ts`. Used by the bench scripts, and by the
// sync agent's end-to-end test to run the CLI from source.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (err) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw err;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
