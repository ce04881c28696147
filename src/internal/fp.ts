// The one place rxfleet imports fp-ts from. fp-ts ships no `exports` map, so ESM consumers must
// name `fp-ts/lib/*.js` files; keeping that here means one line to change if fp-ts ever moves.
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
export { E, O };
export { pipe, flow } from 'fp-ts/lib/function.js';
export type { Either, Left, Right } from 'fp-ts/lib/Either.js';
export type { Option } from 'fp-ts/lib/Option.js';
