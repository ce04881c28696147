// Logging for a running controller: one pino root, a child per controller, per cluster and (in
// reconcile) per key. rxfleet never logs credentials; redaction at any depth (redact.ts) is defence
// in depth for what user code might log (a request's headers, a kubeconfig, a Secret in an event).
import { createRequire } from 'node:module';
import type { Bindings, ChildLoggerOptions, DestinationStream, LogFn, Logger } from 'pino';
import { pino } from 'pino';
import { scrubSecrets } from '../core/scrub.js';
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

type LogMethodHook = (this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) => void;
interface Hooks {
  logMethod?: LogMethodHook;
}

/**
 * A pino `logMethod` hook that scrubs credentials (bearer tokens, JWTs, PEM blocks, `token=…`)
 * out of the message string and its format arguments, before pino formats them; fields are
 * redacted separately, at any depth. `then` is an earlier hook to chain to.
 */
function scrubbingLogMethod(then?: LogMethodHook): LogMethodHook {
  return function (this: Logger, args, method, level) {
    const scrubbed = args.map((a: unknown) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<LogFn>;
    if (then !== undefined) then.call(this, scrubbed, method, level);
    else method.apply(this, scrubbed);
  };
}

// pino reads the `logMethod` hook when it builds a logger's level methods, and a child inherits
// its parent's hooks and methods; child options cannot add a hook. So the hook is set on the
// child through pino's exported symbols, and its level methods are rebuilt once. Without those
// symbols (another pino), messages are left as they are and fields are still redacted.
function scrubbingMessages(log: Logger): Logger {
  const { hooksSym, setLevelSym } = pino.symbols as unknown as Record<string, symbol | undefined>;
  if (hooksSym === undefined || setLevelSym === undefined) return log;
  const own = log as unknown as Record<symbol, unknown>;
  const hooks = (own[hooksSym] ?? {}) as Hooks;
  own[hooksSym] = { ...hooks, logMethod: scrubbingLogMethod(hooks.logMethod) };
  (own[setLevelSym] as (this: Logger, level: string) => void).call(log, log.level);
  return log;
}

// Pretty lines for a person at a terminal, JSON for everything else. pino-pretty is loaded only
// when chosen (it is not needed for JSON); it writes synchronously to stderr like the JSON path.
function destination(): DestinationStream {
  const format = process.env.LOG_FORMAT;
  const pretty = format === 'pretty' || (format === undefined && process.stderr.isTTY);
  if (!pretty) return pino.destination({ fd: 2, sync: true });
  const load = createRequire(import.meta.url)('pino-pretty') as (o: object) => DestinationStream;
  return load({ destination: 2, sync: true, colorize: process.stderr.isTTY, translateTime: 'SYS:HH:MM:ss.l' });
}

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
 * The default root logger, on stderr (stdout stays free for the program's own output): JSON lines,
 * or readable lines (pino-pretty) when `LOG_FORMAT=pretty` or, with `LOG_FORMAT` unset, when stderr
 * is a terminal; `LOG_FORMAT=json` forces JSON. Level from `LOG_LEVEL` (default `info`).
 * Credentials are redacted at any depth from every line and from the bindings of every child (see
 * `redactSecrets` for what goes), and scrubbed from message strings.
 *
 * @example
 * ```ts
 * const log = defaultLogger();
 * log.info('starting');
 * ```
 * @returns a pino logger writing synchronously to file descriptor 2.
 */
export function defaultLogger(): Logger {
  const options = { level: process.env.LOG_LEVEL ?? 'info', formatters: { log: redactSecrets }, hooks: { logMethod: scrubbingLogMethod() } };
  return redactingChildren(pino(options, destination()));
}

/**
 * The logger of one controller: a child of `root` with `{ controller: name }` that redacts
 * credentials at any depth from every line it and its descendants write, and from the bindings of
 * its descendants, so an injected logger redacts too. A `formatters.log` of `root` still runs,
 * before the redaction. Message strings (and their format arguments) are scrubbed of bearer tokens,
 * JWTs, PEM blocks and `token=…`-style values; a `logMethod` hook of `root` still runs, after that.
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
  return scrubbingMessages(redactingChildren(root.child({ controller: name }, { formatters: { log } })));
}
