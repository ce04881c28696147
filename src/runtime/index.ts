// The runtime: declare a controller, run it with probes, metrics, logs and a graceful stop.
// Nothing below the runtime imports it (imports point down the flow).
export type { Controller, ControllerContext, ControllerReconciler, ControllerSpec, ControllerWatchOptions, FleetWatcher, InputContext } from './controller.js';
export { controller } from './controller.js';
export type { RunHandle, RunOptions, RunResult } from './run.js';
export { run } from './run.js';
export { main } from './main.js';
export type { StopReason } from './errors.js';
export { exitCodes } from './errors.js';
export type { ClusterHealth, HealthReport, HealthTracker, HealthView, RunPhase } from './health.js';
export { healthTracker, unservedMessage } from './health.js';
export type { ProbeServer, ProbeServerOptions } from './http.js';
export { startProbeServer } from './http.js';
export type { ControllerMetrics } from './metrics.js';
export { controllerMetrics } from './metrics.js';
export { controllerLogger, defaultLogger, redactPaths } from './logging.js';
export type { SignalTarget } from './signals.js';
export { onStopSignals } from './signals.js';
export type { WriteRecorder } from './instrument.js';
export { instrumentedFleet } from './instrument.js';
