// The one place rxfleet imports fp-ts from. fp-ts ships no `exports` map, so ESM consumers must
// name `fp-ts/lib/*.js` files; keeping that here means one line to change if fp-ts ever moves.
// The namespace is imported and re-exported in two steps: API Extractor cannot follow
// `export * as E from '<package>'`.
import * as E from 'fp-ts/lib/Either.js';
export { E };
export type { Either, Left, Right } from 'fp-ts/lib/Either.js';
