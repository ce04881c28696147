// The ready queue of `reconcile`: one FIFO lane per cluster, served round-robin, so a cluster with
// 50,000 ready keys delays a cluster with one ready key by at most one turn per other busy cluster.
// A lane also counts its cluster's running reconciles: at the per-cluster cap, or while its cluster
// is gated (rate-limited), it sits out of the rotation, so one cluster can never hold every worker
// and a throttled cluster never takes a worker only to wait in it.
import type { Timed } from './deadline-heap.js';
import { Fifo } from './fifo.js';

/**
 * One cluster's lane: its ready items, its running count, and whether it is gated. It is
 * {@link Timed} so that the queue's one timer machine can hold the deadline of its gate.
 *
 * @example
 * ```ts
 * const lane = q.next(); // the lane whose turn it is
 * if (lane !== undefined) start(q.take(lane), lane);
 * ```
 */
export class Lane<T> implements Timed {
  readonly name: string;
  readonly items = new Fifo<T>();
  /** Items of this lane taken with `take` and not yet `finish`ed. */
  running = 0;
  /** Out of the rotation until `ungate`. */
  gated = false;
  /** In the rotation: has items, is not gated, and runs fewer than the cap. */
  inTurn = false;
  at = 0;
  heapIndex = -1;

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /** @example `new Lane<string>('east')` @param name - the lane's name (a cluster name). */
  constructor(name: string) {
    this.name = name;
  }
}

/**
 * Lanes of FIFOs served round-robin: the lane at the head of the rotation gives one item and moves
 * to the back. Only lanes that may run are in the rotation, so an item at position p of its lane is
 * taken within p × (number of lanes in the rotation) turns, and no operation scans the lanes.
 *
 * @example
 * ```ts
 * const q = new FairQueue<string>();
 * q.push('noisy', 'n1'); q.push('noisy', 'n2'); q.push('quiet', 'q1');
 * [q.shift(), q.shift(), q.shift()]; // ['n1', 'q1', 'n2']
 * ```
 */
export class FairQueue<T> {
  // Every lane with items, running work or a gate; lanes without any are forgotten.
  private readonly lanes = new Map<string, Lane<T>>();
  // A Set iterates in insertion order; delete + add moves a lane to the back in O(1).
  private readonly turns = new Set<Lane<T>>();
  private count = 0;
  private readonly cap: number;

  /**
   * @example `new FairQueue<Entry>(5)`
   * @param cap - the most items of one lane that may be running at once (`take` without `finish`).
   */
  constructor(cap = Infinity) {
    this.cap = cap;
  }

  /** Items in all lanes, gated or at their cap included. @example `q.size` @returns the count. */
  get size(): number {
    return this.count;
  }

  /** Lanes with items, running work or a gate. @example `q.laneCount` @returns the count. */
  get laneCount(): number {
    return this.lanes.size;
  }

  /**
   * A lane by name, if it holds anything.
   *
   * @example `q.lane('east')?.running`
   * @param name - the lane.
   * @returns it, or `undefined`.
   */
  lane(name: string): Lane<T> | undefined {
    return this.lanes.get(name);
  }

  /**
   * Appends an item to a lane; a lane that may run and was not in the rotation joins its back.
   *
   * @example `q.push('east', entry)`
   * @param name - the lane (a cluster name).
   * @param item - the item.
   */
  push(name: string, item: T): void {
    let lane = this.lanes.get(name);
    if (lane === undefined) {
      lane = new Lane<T>(name);
      this.lanes.set(name, lane);
    }
    lane.items.push(item);
    this.count++;
    if (!lane.inTurn) this.settle(lane);
  }

  /** The lane whose turn it is, without taking anything. @example `const lane = q.next()` @returns it, or `undefined` when no lane may run. */
  next(): Lane<T> | undefined {
    // Asked after every event: no iterator allocated when nothing may run.
    if (this.turns.size === 0) return undefined;
    return this.turns.values().next().value;
  }

  /**
   * Takes the oldest item of a lane in the rotation to run it: the lane counts one more running
   * item (until `finish`) and moves to the back of the rotation, or out of it at the cap.
   *
   * @example `start(q.take(lane))`
   * @param lane - a lane from `next()`.
   * @returns the item.
   */
  take(lane: Lane<T>): T {
    lane.running++;
    return this.takeFrom(lane);
  }

  /**
   * One item `take`n from the lane stopped running; a lane that was at its cap rejoins the rotation.
   *
   * @example `q.finish(lane)`
   * @param lane - the lane it was taken from.
   */
  finish(lane: Lane<T>): void {
    lane.running--;
    this.settle(lane);
  }

  /**
   * Takes the oldest item of the lane whose turn it is, as a plain queue (nothing counted running).
   *
   * @example `const next = q.shift()`
   * @returns the item, or `undefined` when no lane may run.
   */
  shift(): T | undefined {
    const lane = this.next();
    return lane === undefined ? undefined : this.takeFrom(lane);
  }

  /**
   * Takes a lane out of the rotation until `ungate`; its items stay, and it still takes pushes.
   *
   * @example `q.gate(lane); timers.set(lane, now + waitMs)`
   * @param lane - the lane.
   */
  gate(lane: Lane<T>): void {
    lane.gated = true;
    this.settle(lane);
  }

  /**
   * Lets a gated lane back into the rotation (at the back), if it has items and is under its cap.
   *
   * @example `q.ungate(lane)`
   * @param lane - the lane.
   */
  ungate(lane: Lane<T>): void {
    lane.gated = false;
    this.settle(lane);
  }

  /**
   * Removes a whole lane, running count and gate included.
   *
   * @example `q.dropLane('east')`
   * @param name - the lane.
   * @returns its items, oldest first.
   */
  dropLane(name: string): T[] {
    const lane = this.lanes.get(name);
    if (lane === undefined) return [];
    this.lanes.delete(name);
    this.turns.delete(lane);
    lane.inTurn = false;
    this.count -= lane.items.size;
    return lane.items.drain();
  }

  /** Empties every lane. @example `q.clear()` */
  clear(): void {
    this.lanes.clear();
    this.turns.clear();
    this.count = 0;
  }

  private takeFrom(lane: Lane<T>): T {
    // Only lanes with items are in the rotation.
    const item = lane.items.shift() as T;
    this.count--;
    this.turns.delete(lane);
    lane.inTurn = false;
    this.settle(lane);
    return item;
  }

  // Restores the invariant: in the rotation exactly when it may run; kept only while it holds anything.
  private settle(lane: Lane<T>): void {
    const may = lane.items.size > 0 && !lane.gated && lane.running < this.cap;
    if (may !== lane.inTurn) {
      lane.inTurn = may;
      if (may) this.turns.add(lane);
      else this.turns.delete(lane);
    }
    if (lane.items.size === 0 && lane.running === 0 && !lane.gated) this.lanes.delete(lane.name);
  }
}
