// Logging for a running controller: one pino root, a child per controller, per cluster and (in
// reconcile) per key. rxfleet never logs credentials; the redact paths are defence in depth for
// what user code might log (a request's headers, a kubeconfig, a Secret).
import type { Logger } from 'pino';
import { pino } from 'pino';

/**
 * Paths pino replaces with `[Redacted]` in every line of a controller's logger: Authorization
 * headers, bearer tokens, client keys, passwords, kubeconfigs and Secret data, at the top level
 * and one level down (e.g. `{ req: { headers: { authorization } } }`, `{ secret: { data } }`).
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
 * The default root logger: JSON lines to stderr (stdout stays free for the program's own output),
 * level from `LOG_LEVEL` (default `info`), redacting credentials (Authorization headers, tokens,
 * passwords, client keys, kubeconfigs, Secret data) wherever they appear in a logged object.
 *
 * @example
 * ```ts
 * const log = defaultLogger();
 * log.info('starting');
 * ```
 * @returns a pino logger writing synchronously to file descriptor 2.
 */
export function defaultLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? 'info', redact: [...redactPaths] }, pino.destination({ fd: 2, sync: true }));
}

/**
 * The logger of one controller: a child of `root` with `{ controller: name }` and the redact paths
 * added, so an injected logger redacts too.
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
  return root.child({ controller: name }, { redact: [...redactPaths] });
}
