// Lists paced per server: at most a few lists (plain or streaming, relists included) run at once
// against one server origin, whichever clusters they belong to, so that engaging thousands of
// clusters on one server (namespaces, kcp workspaces) does not send every initial list in the
// same instant: the server's memory is spared (each list is a snapshot it builds and sends) and
// the client decodes a few lists at a time instead of thousands at once.
import type { Observable } from 'rxjs';
import { defer } from 'rxjs';
import { ConfigError } from '../core/config-error.js';
import type { Limiter } from './concurrency-limit.js';
import { limiter } from './concurrency-limit.js';

/**
 * How many lists run at once per server origin unless `listsPerServer` says otherwise: enough to
 * keep one server busy over one HTTP/2 connection, few enough that a burst of thousands of
 * clusters is spread out.
 *
 * @example
 * ```ts
 * createInformers({ listsPerServer: defaultListsPerServer * 2 });
 * ```
 */
export const defaultListsPerServer = 8;

/**
 * One watch's turn to list: `make(release)` runs once its server has a free place, and the place is
 * given back at `release()` (the list is over: the last page, or a streaming list's end bookmark)
 * or when the observable ends or is unsubscribed.
 *
 * @example
 * ```ts
 * const turn: ListTurn = (make) => make(() => undefined); // unpaced
 * ```
 */
export type ListTurn = <T>(make: (release: () => void) => Observable<T>) => Observable<T>;

/**
 * The places of every server a registry of watches lists from, one limiter per origin
 * (scheme, host and port: kcp workspaces of one server share it), made on first use and dropped
 * when idle.
 *
 * @example
 * ```ts
 * const pacer = listPacer(8);
 * const turn = pacer.turn('https://kcp.example:6443/clusters/root:a');
 * ```
 */
export interface ListPacer {
  /** The turn of a watch listing from `server` (a URL, any path ignored). */
  turn(server: string): ListTurn;
  /** Lists running and waiting now, for `server`'s origin. */
  load(server: string): {
    /** Lists holding a place now. */
    readonly running: number;
    /** Lists waiting for a place. */
    readonly waiting: number;
  };
}

/** The origin of a server URL; an unparsable one stands for itself. */
function originOf(server: string): string {
  try {
    return new URL(server).origin;
  } catch {
    return server;
  }
}

/**
 * A pacer allowing `perServer` lists at once per server origin. `createInformers` and
 * `splitWatches` make one each (from `listsPerServer`) unless given one through `listPacer`; pass
 * the same pacer to several registries to share the bound among them.
 *
 * @example
 * ```ts
 * const pacer = listPacer(4);
 * const a = createInformers({ listPacer: pacer });
 * const b = createInformers({ listPacer: pacer }); // a and b together: 4 lists per server
 * ```
 * @param perServer - lists at once per origin, an integer ≥ 1 (default {@link defaultListsPerServer}).
 * @returns the pacer.
 * @throws ConfigError when `perServer` is not an integer ≥ 1.
 */
export function listPacer(perServer: number = defaultListsPerServer): ListPacer {
  if (!Number.isInteger(perServer) || perServer < 1) throw new ConfigError(`listsPerServer must be an integer ≥ 1, got ${String(perServer)}`);
  const byOrigin = new Map<string, Limiter>();
  const of = (origin: string): Limiter => {
    let found = byOrigin.get(origin);
    if (found === undefined) {
      const made: Limiter = limiter(perServer, () => {
        if (byOrigin.get(origin) === made) byOrigin.delete(origin);
      });
      byOrigin.set(origin, made);
      found = made;
    }
    return found;
  };
  return {
    turn(server: string): ListTurn {
      const origin = originOf(server);
      // Looked up at each subscription: an idle origin's limiter is dropped in between.
      return (make) => defer(() => of(origin).run(make));
    },
    load(server: string) {
      const l = byOrigin.get(originOf(server));
      return { running: l?.running ?? 0, waiting: l?.waiting ?? 0 };
    },
  };
}
