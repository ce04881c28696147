// Logging for a running controller: one pino root, a child per controller, per cluster and (in
// reconcile) per key. rxfleet never logs credentials; scrubbing every argument at any depth
// (scrubbing-logger.ts, redact.ts) is defence in depth for what user code might log (a request's
// headers, a kubeconfig, a Secret in an event, an error a gateway echoed a token into).
import type { Logger } from 'pino';
import { pino } from 'pino';
import { logDestination, processLogEnv } from './log-destination.js';
import { redactLine } from './redact.js';
import { scrubbingLogger } from './scrubbing-logger.js';

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

/**
 * The default root logger, on stderr (stdout stays free for the program's own output): JSON lines,
 * or readable lines (pino-pretty, when the project has it as a dev dependency: JSON otherwise) when
 * `LOG_FORMAT=pretty` or, with `LOG_FORMAT` unset, when stderr is a terminal; `LOG_FORMAT=json`
 * forces JSON. Level from `LOG_LEVEL` (default `info`).
 * Credentials are scrubbed from everything a call is given, whatever its shape (message, Error,
 * causes, format arguments, fields at any depth, child bindings; see {@link controllerLogger}), and
 * then once more from each serialised line (pino's `hooks.streamWrite`), which also catches one
 * split across a format and its arguments (`log.info('%s=%s', 'access_token', value)`).
 *
 * @example
 * ```ts
 * const log = defaultLogger();
 * log.info('starting');
 * ```
 * @returns a pino logger writing synchronously to file descriptor 2.
 */
export function defaultLogger(): Logger {
  const options = { level: process.env.LOG_LEVEL ?? 'info', hooks: { streamWrite: redactLine } };
  return scrubbingLogger(pino(options, logDestination(processLogEnv())));
}

/**
 * The logger of one controller: a child of `root` with `{ controller: name }` that keeps credentials
 * out of every line it and its descendants write, so an injected logger is safe too. Before pino
 * sees them, the arguments of every call are scrubbed, whatever their shape: the message and the
 * values of `%s`/`%j`/`%o`/`%O`; an Error (first or in a field) in its message, stack, `cause`
 * chain and an AggregateError's `errors`; fields at any depth and inside arrays (credential keys,
 * Secrets' `data`, kubeconfigs; see `redactSecrets`); what an object's `toJSON` returns; and the
 * bindings and `msgPrefix` of every child. In text, bearer and Basic credentials, JWTs (by their
 * shape), PEM blocks, URL passwords and `token=…`-style values go (see `scrubSecrets`). It works
 * through pino's public Logger API only, so `root` is not changed, and `root`'s own `logMethod`
 * hook, serializers and `formatters` still run, on the scrubbed arguments; what they add themselves
 * is theirs (rxfleet's own {@link defaultLogger} scrubs each serialised line too).
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
  return scrubbingLogger(root).child({ controller: name });
}
