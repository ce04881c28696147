// The one error type that means "this configuration can never work; here is what to fix": thrown
// by every layer (client, providers, runtime) before anything starts, never for a runtime failure.

/**
 * A configuration that can never work (no provider, no name, a kubeconfig that does not parse).
 * Its message says what to fix; `run` and `main` report it and exit with code 2 without starting.
 *
 * @example
 * ```ts
 * throw new ConfigError('controller "baseline": no provider given; pass `provider: clusterListProvider([...])`');
 * ```
 */
export class ConfigError extends Error {
  /**
   * Makes the error.
   *
   * @example
   * ```ts
   * new ConfigError('no clusters: pass at least one --kubeconfig NAME=PATH');
   * ```
   * @param message - what is wrong and how to fix it, in one sentence.
   */
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
