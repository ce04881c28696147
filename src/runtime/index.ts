/**
 * rxfleet/runtime: the parts `run` and `main` assemble, for a process that hosts controllers its
 * own way: the probe and metrics server, the controller metrics, the loggers, stop signals, the
 * health types `/readyz` serves, the exit codes, and the types of running as several replicas
 * (leader election, sharding); `captureDeclarations`, how `rxfleet rbac` (@rxfleet/cli) reads a
 * program's controllers without running them, and `scrubSecrets`, the scrubbing the logger applies,
 * for text written outside it. `controller`, `run` and `main` are in the root.
 *
 * @example
 * ```ts
 * import { exitCodes } from 'rxfleet/runtime';
 * const result = await main(hello);
 * if (result.code === exitCodes.config) console.error('fix the configuration:', result.message);
 * ```
 * @packageDocumentation
 * @module rxfleet/runtime
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export { exitCodes } from './errors.js';
export type { ClusterHealth, DiscoveryHealth, HealthReport, HealthView, RunPhase } from './health.js';
export type { DiscoveryOptions } from './run-types.js';
export type { FirstPass } from './first-pass.js';
export { firstPass } from './first-pass.js';
export type { ClusterRateLimitOption } from './cluster-rate-limit.js';
export type { ProviderIssue } from './provider-issues.js';
export type { ProbeServer, ProbeServerOptions } from './http.js';
export { startProbeServer } from './http.js';
export type { ControllerMetrics, ControllerMetricsOptions } from './metrics.js';
export { registerProcessMetrics } from './process-metrics.js';
export { controllerMetrics } from './metrics.js';
export type { WriteRecorder } from './instrument.js';
export type { RequestMetrics } from './request-series.js';
export { requestMetrics } from './request-series.js';
export { controllerLogger, defaultLogger } from './logging.js';
export type { SignalTarget } from './signals.js';
export { onStopSignals } from './signals.js';
export type { LeaseTiming } from './ha/lease-timing.js';
export { defaultLeaseTiming } from './ha/lease-timing.js';
export type { ReplicaLeaseOptions, Replicas, ReplicaState, ReplicaView } from './ha/replicas.js';
export { replicaIdentity } from './ha/replicas.js';
export type { WarmCachesOption } from './ha/warm-caches.js';
export type { Declaration, DeclaredController } from './declarations.js';
export { captureDeclarations } from './declarations.js';
export { scrubSecrets } from '../core/scrub.js';
