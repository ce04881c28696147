/**
 * rxfleet/testing: marble-test your own pipelines. Events, fake clusters and fleets, reconcilers
 * that run in virtual time, and outcomes as compact marble values. See docs/testing.md.
 *
 * @packageDocumentation
 * @module rxfleet/testing
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type { KeyedEventBuilder, ObjectFields } from './events.js';
export { keyedEvents } from './events.js';
export { fakeCluster, fakeFleet, fleetViews, stubClient } from './fleet.js';
export type { RecordedRun, Step } from './reconcilers.js';
export { recorder, scripted, takes } from './reconcilers.js';
export { outcomeLabel, toLabels } from './outcomes.js';
// The in-memory fleet: clusters that behave like API servers, injected failures, recorded requests.
export type { InMemoryClusterContents, InMemoryClusterSeed, InMemoryFleet, InMemoryFleetOptions, RequestFilter } from './in-memory-fleet.js';
export { inMemoryFleet } from './in-memory-fleet.js';
export type { FakeRequest } from './fake-client.js';
export { isWrite, requestLabel } from './fake-client.js';
export type { FailureRule, InjectedFailure } from './fake-failures.js';
export { statusFailure, timeoutFailure } from './fake-failures.js';
// The virtual-time controller harness.
export type { RunControllerOptions, ControllerUnderTest, FleetChange } from './harness.js';
export { deleteChange, putChange, runController } from './harness.js';
// The error and outcome constructors a test needs to build expected values have one home each:
// `kubeError`, `fromStatus` and `fromTransport` in rxfleet/client; `written`, `writeFailed` and
// `refusal` in rxfleet/sinks.
