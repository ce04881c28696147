// A pino logger whose every argument reaches pino without credentials. Built on the public Logger
// API alone (its level methods, `child`, `setBindings`, `levels`, `isLevelEnabled`), so it works on
// any pino logger, an injected root included, and survives a pino upgrade: child options cannot add
// a `logMethod` hook, and pino's internal symbols are not a contract.
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import { scrubSecrets } from '../core/scrub.js';
import { redactLogArguments, redactSecrets } from './redact.js';

type Method = (...args: unknown[]) => unknown;

const scrubbing = new WeakSet<object>();

// The wrapped methods, made once per logger: `log.info === log.info` stays true, and a call
// allocates nothing when its arguments are clean.
function wrapper(target: Logger, prop: string): Method | undefined {
  if (Object.hasOwn(target.levels.values, prop)) {
    return (...args) => {
      if (!target.isLevelEnabled(prop)) return;
      // Looked up at each call: `log.level = 'debug'` makes pino replace its level methods.
      (target as unknown as Record<string, Method>)[prop]?.(...redactLogArguments(args));
    };
  }
  if (prop === 'child') {
    return (bindings: unknown, options?: unknown) => {
      const o = options as ChildLoggerOptions | undefined;
      const own = o?.msgPrefix === undefined ? o : { ...o, msgPrefix: scrubSecrets(o.msgPrefix) };
      const b = typeof bindings === 'object' && bindings !== null ? redactSecrets(bindings as Record<string, unknown>) : bindings;
      return scrubbingLogger(target.child(b as Bindings, own));
    };
  }
  if (prop === 'setBindings') {
    return (bindings: unknown) => {
      target.setBindings(redactSecrets(bindings as Record<string, unknown>));
    };
  }
  return undefined;
}

/**
 * `log`, seen through a Proxy that scrubs credentials out of whatever reaches pino: every argument of
 * every level method (custom levels too) as `redactLogArguments` does, the bindings of every child
 * and of `setBindings` as `redactSecrets` does, and a child's `msgPrefix`. Children are wrapped in
 * turn; everything else (`level`, `bindings()`, `flush()`, …) is `log`'s own. `log` itself is not
 * changed, and a logger already wrapped is returned as it is.
 *
 * @example
 * ```ts
 * const log = scrubbingLogger(pino());
 * log.error(new Error('gateway echoed Bearer abc')); // "msg":"gateway echoed Bearer [Redacted]"
 * ```
 * @param log - any pino logger.
 * @returns the scrubbing view of it.
 */
export function scrubbingLogger(log: Logger): Logger {
  if (scrubbing.has(log)) return log;
  const wrapped = new Map<string, Method | null>();
  const view = new Proxy(log, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      let w = wrapped.get(prop);
      if (w === undefined) {
        w = wrapper(target, prop) ?? null;
        wrapped.set(prop, w);
      }
      return w ?? value;
    },
    set: (target, prop, value) => Reflect.set(target, prop, value),
  });
  scrubbing.add(view);
  return view;
}
