// What a kubeconfig written by someone other than the operator (a Secret's author) may make the
// controller do besides talk to its server. The providers that read kubeconfigs from Secrets
// (rxfleet/providers/kubeconfig-secrets, rxfleet/providers/cluster-api) take it as `trust`.

/**
 * What a kubeconfig from a Secret may use beyond inline credentials, each allowed by exact value.
 * Everything else that runs a program or reads a file is refused: `users[].user.exec`,
 * `token-file` (`tokenFile`), `client-certificate`, `client-key`, an `auth-provider`'s `tokenFile`,
 * `idp-certificate-authority` and `cmd-path` (never allowed: client-node runs it through a shell
 * with the Secret's own `cmd-args`), and `clusters[].cluster.certificate-authority`. A cluster's
 * `insecure-skip-tls-verify: true` is refused too unless `insecureSkipTLSVerify` allows it: a Secret
 * must not turn off server verification on the operator's behalf. Inline data (`token`,
 * `client-key-data`, `certificate-authority-data`…) is always fine.
 *
 * @example
 * ```ts
 * const trust: KubeconfigTrust = { execCommands: ['aws-iam-authenticator'], files: ['/var/run/secrets/eks/token'] };
 * const lab: KubeconfigTrust = { insecureSkipTLSVerify: true }; // test clusters with self-signed certificates
 * ```
 */
export interface KubeconfigTrust {
  /**
   * Exec plugin commands a Secret's kubeconfig may run, compared with `exec.command` as written (a
   * bare name is looked up on the controller's PATH). The Secret chooses the arguments and the
   * environment, except variables that change what runs (`PATH`, `LD_*`, `DYLD_*`,
   * `NODE_OPTIONS`): allow only commands that are safe with any arguments.
   */
  readonly execCommands?: readonly string[];
  /** Files on the controller's disk a Secret's kubeconfig may name, compared as written. */
  readonly files?: readonly string[];
  /**
   * Let a Secret's kubeconfig set `insecure-skip-tls-verify: true` (no server certificate check,
   * so anyone on the path can read its credentials). Default false: such a Secret is refused.
   */
  readonly insecureSkipTLSVerify?: boolean;
}
