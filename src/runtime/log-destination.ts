// Where the default logger writes: readable lines for a person at a terminal, JSON for everything
// else. pino-pretty is loaded only when pretty lines are chosen and the project has it (a dev
// dependency of the project; rxfleet declares it nowhere, not even as an optional peer, since npm
// would then keep the project's dev copy in production installs). Without it JSON is written, with
// one line saying so when pretty lines were asked for by name.
import { createRequire } from 'node:module';
import type { DestinationStream } from 'pino';
import { pino } from 'pino';

/**
 * What the choice of destination reads; injected so tests need no terminal and no uninstall.
 *
 * @example
 * ```ts
 * const env: LogDestinationEnv = { format: process.env.LOG_FORMAT, isTTY: process.stderr.isTTY === true, loadPretty: () => undefined };
 * ```
 */
export interface LogDestinationEnv {
  /** `LOG_FORMAT`: `pretty`, `json`, or unset (pretty on a terminal). */
  readonly format: string | undefined;
  /** Whether stderr is a terminal. */
  readonly isTTY: boolean;
  /** pino-pretty's factory, or `undefined` when the package is not installed. */
  readonly loadPretty: () => ((options: object) => DestinationStream) | undefined;
  /** Says, once, why pretty lines were asked for and not given. */
  readonly warn: (line: string) => void;
}

/** pino-pretty's factory when the project has it installed. */
function installedPretty(): ((options: object) => DestinationStream) | undefined {
  try {
    return createRequire(import.meta.url)('pino-pretty') as (options: object) => DestinationStream;
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * The process's own environment: `LOG_FORMAT`, stderr, the installed pino-pretty, stderr for the warning.
 *
 * @example
 * ```ts
 * const stream = logDestination(processLogEnv());
 * ```
 * @returns the environment.
 */
export function processLogEnv(): LogDestinationEnv {
  return {
    format: process.env.LOG_FORMAT,
    isTTY: process.stderr.isTTY,
    loadPretty: installedPretty,
    warn: (line) => {
      process.stderr.write(`${line}\n`);
    },
  };
}

/**
 * The default logger's destination: pino-pretty on stderr when `LOG_FORMAT=pretty`, or when it is
 * unset and stderr is a terminal, and pino-pretty is installed; JSON lines on stderr otherwise. Both
 * write synchronously. `LOG_FORMAT=pretty` without pino-pretty writes JSON and says so once.
 *
 * @example
 * ```ts
 * const log = pino({ level: 'info' }, logDestination(processLogEnv()));
 * ```
 * @param env - the format asked for, the terminal, the loader.
 * @returns the stream to write log lines to.
 */
export function logDestination(env: LogDestinationEnv): DestinationStream {
  const pretty = env.format === 'pretty' || (env.format === undefined && env.isTTY);
  const load = pretty ? env.loadPretty() : undefined;
  if (load !== undefined) return load({ destination: 2, sync: true, colorize: env.isTTY, translateTime: 'SYS:HH:MM:ss.l' });
  if (env.format === 'pretty') env.warn('rxfleet: LOG_FORMAT=pretty needs the pino-pretty package (npm install --save-dev pino-pretty); writing JSON log lines');
  return pino.destination({ fd: 2, sync: true });
}
