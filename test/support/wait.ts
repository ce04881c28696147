// The waits of the tests and benchmarks: for a condition, never for a length of time. One polling
// loop, envtest's (src/envtest/wait.ts), behind three names:
// - eventually: until a check holds, within a bounded time, failing with what was awaited;
// - must: the value of a Right, or an error naming what failed;
// - retrying: a call repeated while the server answers with a transient failure.
// "Nothing happened" is never proved by waiting: make something happen after it (a sentinel that
// is processed after the event that should have no effect), eventually see the sentinel's effect,
// then assert the first had none.
import { E } from '../../src/fp/index.js';
import { ServerStartError } from '../../src/envtest/process.js';
import { waitUntil } from '../../src/envtest/wait.js';

/**
 * How long {@link eventually} waits, and what it says when it gives up.
 *
 * @example
 * const opts: EventuallyOptions = { timeoutMs: 10_000, intervalMs: 0, context: () => log.join('\n') };
 */
export interface EventuallyOptions {
  /** Give up after this long (default 60 s): every wait is bounded. */
  readonly timeoutMs?: number;
  /** Between checks (default 50 ms); 0 checks again on the next turn of the event loop. */
  readonly intervalMs?: number;
  /** Read on time-out and added to the error (e.g. what was seen meanwhile, a log tail). */
  readonly context?: () => string;
}

/**
 * A check's answer: a value (done), or `undefined`/`false` (not yet). A check that throws ends the
 * wait with its error at once: throw for a state that can no longer turn good.
 */
export type Check<T> = () => T | undefined | false | Promise<T | undefined | false>;

type Outcome<T> = { readonly value: T } | { readonly error: unknown };

/**
 * Checks `check` until it returns a value other than `undefined` and `false`, and resolves with
 * it; after `timeoutMs` rejects with "timed out after … waiting for <what>" and `context()`.
 *
 * @example
 * const pod = await eventually('the pod to be Running', () => store.get(key)?.status?.phase === 'Running' && store.get(key), { timeoutMs: 30_000 });
 */
export async function eventually<T>(what: string, check: Check<T>, opts: EventuallyOptions = {}): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await waitUntil<Outcome<T>>(
      what,
      async () => {
        try {
          const v = await check();
          return v === false || v === undefined ? undefined : { value: v };
        } catch (error: unknown) {
          return { error };
        }
      },
      { timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: opts.intervalMs ?? 50 },
    );
  } catch (err: unknown) {
    // waitUntil names its time-out after the server start it usually awaits; here it is a test's.
    if (!(err instanceof ServerStartError)) throw err;
    const context = opts.context?.() ?? '';
    throw new Error(context === '' ? err.message : `${err.message}\n${context}`, { cause: err });
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * The value of a Right; for a Left, an error with `what` and the Left's message.
 *
 * @example
 * const cm = must(await client.get(configMaps, 'settings', { namespace }), 'get settings');
 */
export function must<T>(r: E.Either<{ readonly message: string }, T>, what?: string): T {
  if (E.isLeft(r)) throw new Error(what === undefined ? r.left.message : `${what}: ${r.left.message}`);
  return r.right;
}

/** What a server answers while it restarts, or is busy: worth asking again. */
const TRANSIENT: readonly string[] = ['Transient', 'ClusterUnreachable', 'Timeout', 'TooManyRequests'];

/**
 * How long {@link retrying} retries, and which failures besides the transient ones.
 *
 * @example
 * const opts: RetryingOptions = { timeoutMs: 30_000, alsoRetry: ['Conflict'] };
 */
export interface RetryingOptions {
  /** Give up after this long (default 60 s). */
  readonly timeoutMs?: number;
  /** Error types retried besides Transient, ClusterUnreachable, Timeout and TooManyRequests. */
  readonly alsoRetry?: readonly string[];
}

/**
 * Calls `call` until it answers a Right and resolves with its value; a transient failure (a
 * restarting server) is asked again, any other fails at once, naming `what`.
 *
 * @example
 * await retrying(`create ${name}`, () => cluster.client.create(configMaps, configMap(name, namespace)));
 */
export async function retrying<T>(
  what: string,
  call: () => Promise<E.Either<{ readonly message: string; readonly type: string }, T>>,
  opts: RetryingOptions = {},
): Promise<T> {
  const retried = [...TRANSIENT, ...(opts.alsoRetry ?? [])];
  let last = '';
  const settled = await eventually(
    what,
    async () => {
      const r = await call();
      if (E.isRight(r) || !retried.includes(r.left.type)) return r;
      last = `${r.left.type}: ${r.left.message}`;
      return undefined;
    },
    { timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 200, context: () => `last answer: ${last}` },
  );
  return must(settled, what);
}
