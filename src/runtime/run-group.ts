// The controllers of one run, checked before anything starts: a run of several controllers is one
// fleet (one provider subscription, one set of watches), so they must agree on what they share.
import type { RateLimit } from '../core/token-bucket.js';
import { ConfigError } from '../core/config-error.js';
import type { KubeObject } from '../core/object.js';
import type { InformersOptions } from '../streams/informers.js';
import type { Provider } from '../streams/cluster.js';
import type { Controller } from './controller.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

/**
 * The controllers of a run as a list, checked: at least one, names unique (they label metrics and
 * logs), one provider object for all (the run subscribes to it once), and one watch configuration
 * (their watches come from shared informers).
 *
 * @example
 * ```ts
 * const all = runControllers([publisher, sync]);
 * ```
 * @param c - one controller or several.
 * @returns the list.
 * @throws ConfigError naming what to fix.
 */
export function runControllers<T extends KubeObject>(c: Controller<T> | readonly Controller<KubeObject>[]): readonly Controller<KubeObject>[] {
  const all: readonly Controller<KubeObject>[] = isList(c) ? c : [c as unknown as Controller<KubeObject>];
  const seen = new Set<string>();
  for (const x of all) {
    if (seen.has(x.name)) throw new ConfigError(`run: two controllers are named "${x.name}"; names label metrics and logs, give each its own`);
    seen.add(x.name);
  }
  const [first] = all;
  if (first === undefined) throw new ConfigError('run: no controller given; pass a controller or a non-empty list of them');
  const other = all.find((x) => x.provider !== first.provider);
  if (other !== undefined) {
    throw new ConfigError(`run: controllers "${first.name}" and "${other.name}" name different providers; the controllers of one run share one fleet: pass the same Provider object to each (compose several with rxjs merge) and narrow with select.clusterSelector`);
  }
  const differs = all.find((x) => !isDeepStrictEqual(x.watchOptions, first.watchOptions));
  if (differs !== undefined) throw new ConfigError(`run: controllers "${first.name}" and "${differs.name}" give different watchOptions; the watches of one run are shared, give the same settings (or none) to each`);
  return all;
}

function isList<T extends KubeObject>(c: Controller<T> | readonly Controller<KubeObject>[]): c is readonly Controller<KubeObject>[] {
  return Array.isArray(c);
}

/**
 * The run's one provider (every controller names the same one, see {@link runControllers}).
 *
 * @example
 * ```ts
 * const p = runProvider(runControllers(c));
 * ```
 * @param all - the checked controllers.
 * @returns the provider.
 */
export function runProvider(all: readonly Controller<KubeObject>[]): Provider {
  const [first] = all;
  if (first === undefined) throw new ConfigError('run: no controller given');
  return first.provider;
}

/**
 * The run's one watch configuration (every controller gives the same, see {@link runControllers}).
 *
 * @example
 * ```ts
 * const informers = createInformers({ ...runWatchConfig(all), scheduler });
 * ```
 * @param all - the checked controllers.
 * @returns the settings, or none.
 */
export function runWatchConfig(all: readonly Controller<KubeObject>[]): InformersOptions | undefined {
  return all[0]?.watchOptions;
}

/**
 * The deprecated `sinks.rateLimit`, folded into the run's per-cluster limiter: at most one
 * controller of a run may give it (it limits each cluster for the whole run).
 *
 * @example
 * ```ts
 * clusterRateLimits(options.clusterRateLimit, legacyRateLimit(all), parts);
 * ```
 * @param all - the checked controllers.
 * @returns the one given, if any.
 * @throws ConfigError when several controllers give one.
 */
export function legacyRateLimit(all: readonly Controller<KubeObject>[]): RateLimit | undefined {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- read to fold it into the one per-cluster limiter
  const given = all.filter((x) => x.sinks?.rateLimit !== undefined);
  if (given.length > 1) throw new ConfigError(`run: controllers ${given.map((x) => `"${x.name}"`).join(', ')} each give sinks.rateLimit; it limits each cluster for the whole run: give RunOptions.clusterRateLimit once instead`);
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- as above
  return given[0]?.sinks?.rateLimit;
}

/**
 * Whether a controller can join a run that already runs (`RunHandle.add`): the same provider and
 * watch settings as the run's controllers (see {@link runControllers}), a field manager whose
 * entries the run's caches keep (so its applies can be proven needless), required clusters the run
 * already waits for (readiness), and no `sinks.rateLimit` of its own (the run's limiter is made).
 *
 * @example
 * ```ts
 * joinCheck(all)(another); // throws a ConfigError naming what differs
 * ```
 * @param all - the run's first controllers.
 * @returns the check: throws a ConfigError naming what to fix.
 */
export function joinCheck(all: readonly Controller<KubeObject>[]): (c: Controller<KubeObject>) => void {
  const first = all[0];
  const managers = new Set(all.map((x) => x.fieldManager));
  const required = new Set(all.flatMap((x) => x.requiredClusters ?? []));
  return (c) => {
    const cannot = `run: controller "${c.name}" cannot join the running run`;
    if (first === undefined) throw new ConfigError(`${cannot}: the run has no controller`);
    if (c.provider !== first.provider) throw new ConfigError(`${cannot}: it names another provider than "${first.name}"; pass the same Provider object`);
    if (!isDeepStrictEqual(c.watchOptions, first.watchOptions)) throw new ConfigError(`${cannot}: its watchOptions differ from "${first.name}"'s`);
    if (!managers.has(c.fieldManager)) throw new ConfigError(`${cannot}: its field manager "${c.fieldManager}" is not one of the run's (${[...managers].join(', ')}); the caches keep only theirs`);
    const extra = (c.requiredClusters ?? []).filter((cl) => !required.has(cl));
    if (extra.length > 0) throw new ConfigError(`${cannot}: it requires cluster(s) ${extra.join(', ')} that the run's readiness does not wait for; require them in a controller the run starts with`);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- refused: the run's limiter is already made
    if (c.sinks?.rateLimit !== undefined) throw new ConfigError(`${cannot}: it gives sinks.rateLimit; give RunOptions.clusterRateLimit when the run starts`);
  };
}
