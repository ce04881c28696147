// Logging for a running controller: one pino root, a child per controller, per cluster and (in
// reconcile) per key. rxfleet never logs credentials; redaction at any depth (redact.ts) is defence
// in depth for what user code might log (a request's headers, a kubeconfig, a Secret in an event).
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import { pino } from 'pino';
import { redactSecrets } from './redact.js';

/**
 * Paths for pino's own `redact` option, for a logger rxfleet does not build: Authorization headers,
 * bearer tokens, client keys, passwords, kubeconfigs and Secret data, at the top level and one
 * level down (e.g. `{ req: { headers: { authorization } } }`, `{ secret: { data } }`). rxfleet's
 * loggers ({@link defaultLogger}, {@link controllerLogger}) do not use them: they redact these and
 * more at any depth, inside arrays too.
 *
 * @example
 * ```ts
 * const log = pino({ redact: [...redactPaths] });
 * log.info({ headers: { authorization: 'Bearer x' } }); // "authorization":"[Redacted]"
 * ```
 */
export const redactPaths: readonly string[] = Object.freeze([
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'token',
  '*.token',
  'bearerToken',
  '*.bearerToken',
  'password',
  '*.password',
  'clientKey',
  '*.clientKey',
  'client-key-data',
  '*.client-key-data',
  'kubeconfig',
  '*.kubeconfig',
  'secret.data',
  'secret.stringData',
  '*.secret.data',
  '*.secret.stringData',
]);

type LogFormatter = (fields: Record<string, unknown>) => Record<string, unknown>;
type Formatters = Readonly<{ log?: LogFormatter }>;
// pino's `child`, without its custom-level generics (which no cast between them satisfies).
type ChildFn = (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) => Logger;

// A child's bindings are serialised once, when the child is made, and pino does not pass its
// `bindings` formatter on to grandchildren. So `child` itself is wrapped to redact them; every
// descendant inherits the wrapper, as a pino child is `Object.create(parent)`.
function redactingChildren(log: Logger): Logger {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with each descendant as `this`, as pino does
  const child = log.child as unknown as ChildFn;
  const redactingChild = function (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) {
    return child.call(this, redactSecrets(bindings), options);
  };
  return Object.assign(log, { child: redactingChild as unknown as Logger['child'] });
}

/**
 * The default root logger: JSON lines to stderr (stdout stays free for the program's own output),
 * level from `LOG_LEVEL` (default `info`). Credentials are redacted at any depth from every line
 * and from the bindings of every child (see `redactSecrets` for what goes).
 *
 * @example
 * ```ts
 * const log = defaultLogger();
 * log.info('starting');
 * ```
 * @returns a pino logger writing synchronously to file descriptor 2.
 */
export function defaultLogger(): Logger {
  return redactingChildren(pino({ level: process.env.LOG_LEVEL ?? 'info', formatters: { log: redactSecrets } }, pino.destination({ fd: 2, sync: true })));
}

/**
 * The logger of one controller: a child of `root` with `{ controller: name }` that redacts
 * credentials at any depth from every line it and its descendants write, and from the bindings of
 * its descendants, so an injected logger redacts too. A `formatters.log` of `root` still runs,
 * before the redaction. Message strings are not redacted: log credentials as fields, if ever.
 *
 * @example
 * ```ts
 * const log = controllerLogger(pino(), 'baseline');
 * log.child({ cluster: 'east' }).info('engaged');
 * ```
 * @param root - the injected root logger.
 * @param name - the controller's name.
 * @returns the child logger.
 */
export function controllerLogger(root: Logger, name: string): Logger {
  // A child's `formatters.log` replaces its parent's; keep the root's (pino exports the symbol).
  const own = (root as unknown as Record<symbol, Formatters | undefined>)[pino.symbols.formattersSym]?.log;
  const log = (fields: object): object => redactSecrets(own === undefined ? (fields as Record<string, unknown>) : own(fields as Record<string, unknown>));
  return redactingChildren(root.child({ controller: name }, { formatters: { log } }));
}
