/**
 * rxfleet/testing: marble-test your own pipelines. Events, fake clusters and fleets, reconcilers
 * that run in virtual time, and outcomes as compact marble values. See docs/testing.md.
 *
 * @packageDocumentation
 * @module rxfleet/testing
 */
export type { KeyedEventBuilder, ObjectFields } from './events.js';
export { keyedEvents } from './events.js';
export { fakeCluster, fakeFleet, fleetViews, stubClient } from './fleet.js';
export type { RecordedRun, Step } from './reconcilers.js';
export { recorder, scripted, takes } from './reconcilers.js';
export { outcomeLabel, toLabels } from './outcomes.js';
