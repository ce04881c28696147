// The ready queue of `reconcile`: one FIFO lane per cluster, and a free worker goes to the lane
// whose oldest ready key has waited longest (first come, first served across clusters), so a wave
// that reaches the clusters one after another is served in the order it arrived. Keys that became
// ready at the same instant (a take-over, a list replay) are served round-robin across their
// clusters: every cluster's first key of that instant before any cluster's second. A lane also
// counts its cluster's running reconciles: at the per-cluster cap, or while its cluster is gated
// (rate-limited), it sits out, so one cluster can never hold more than its share of the workers and
// a throttled cluster never takes a worker only to wait in it. A lane at its cap that is not gated
// waits among the lanes over their cap: `nextOver` offers it a worker no lane under its cap wants
// (the engine lends idle workers that way, see `QueueOptions.lendIdleWorkers`).
import type { Timed } from './deadline-heap.js';
import { DeadlineHeap } from './deadline-heap.js';
import { Fifo } from './fifo.js';

// A tie is (rank in its lane at its instant, arrival at its instant), each below SPAN, as one number.
const SPAN = 2 ** 26;
const tieOf = (rank: number, seq: number): number => Math.min(rank, SPAN - 1) * SPAN + Math.min(seq, SPAN - 1);

/** A lane's place among the lanes that may run: when its oldest item became ready, then its tie. */
interface Turn<T> extends Timed {
  readonly lane: Lane<T>;
  tie: number;
}

// The lanes that may run, by their heads' instants; at one instant, by rank, then by arrival.
class TurnHeap<T> extends DeadlineHeap<Turn<T>> {
  protected override before(a: Turn<T>, b: Turn<T>): boolean {
    return a.at < b.at || (a.at === b.at && a.tie < b.tie);
  }
}

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
  /** The instant each item became ready, and its tie at that instant, in the same order: the head's order the lanes. */
  readonly instants = new Fifo<number>();
  readonly ties = new Fifo<number>();
  /** The instant of the last push, and how many items were pushed at it (the next one's rank). */
  lastAt = Number.NaN;
  rank = 0;
  /** Its place among the lanes that may run. */
  readonly turn: Turn<T>;
  /** Items of this lane taken with `take` and not yet `finish`ed. */
  running = 0;
  /** Out of the rotation until `ungate`. */
  gated = false;
  /** Where its turn sits: `turn` may run (has items, not gated, under the cap); `over` would, but is at the cap; `out` neither. */
  place: 'out' | 'turn' | 'over' = 'out';
  at = 0;
  heapIndex = -1;

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /** @example `new Lane<string>('east')` @param name - the lane's name (a cluster name). */
  constructor(name: string) {
    this.name = name;
    this.turn = { lane: this, at: 0, heapIndex: -1, tie: 0 };
  }
}

/**
 * Lanes of FIFOs served oldest first: the lane that may run and whose head became ready first gives
 * its head. Items that became ready at the same instant go round-robin across lanes: by their rank
 * in their lane at that instant (its first, its second…), then in the order they arrived. Only lanes
 * that may run are ordered (a heap on their heads), so every operation is O(log lanes) and none
 * scans the lanes. Fairness comes from the cap: a lane at it sits out, so a flooded lane holds at
 * most `cap` items running and the others are served, in the order their items arrived, by the rest.
 *
 * @example
 * ```ts
 * const q = new FairQueue<string>();
 * q.push('a', 'a1', 0); q.push('a', 'a2', 0); q.push('b', 'b1', 0); q.push('a', 'a3', 1);
 * [q.shift(), q.shift(), q.shift(), q.shift()]; // ['a1', 'b1', 'a2', 'a3']
 * ```
 */
export class FairQueue<T> {
  // Every lane with items, running work or a gate; lanes without any are forgotten.
  private readonly lanes = new Map<string, Lane<T>>();
  // The lanes that may run, by their head's instant and tie.
  private readonly turns = new TurnHeap<T>();
  // The lanes that would run but are at their cap, in the same order.
  private readonly overs = new TurnHeap<T>();
  private count = 0;
  // The instant of the last push, and how many items were pushed at it.
  private instant = Number.NaN;
  private arrived = 0;
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
   * Appends an item to a lane; a lane that now may run takes its place by its head.
   *
   * @example `q.push('east', entry, scheduler.now())`
   * @param name - the lane (a cluster name).
   * @param item - the item.
   * @param at - the instant it became ready (never earlier than the last push's).
   */
  push(name: string, item: T, at: number): void {
    let lane = this.lanes.get(name);
    if (lane === undefined) {
      lane = new Lane<T>(name);
      this.lanes.set(name, lane);
    }
    if (at !== this.instant) {
      this.instant = at;
      this.arrived = 0;
    }
    if (at !== lane.lastAt) {
      lane.lastAt = at;
      lane.rank = 0;
    }
    lane.items.push(item);
    lane.instants.push(at);
    lane.ties.push(tieOf(lane.rank++, this.arrived++));
    this.count++;
    if (lane.place === 'out') this.settle(lane);
  }

  /** The lane whose turn it is (its head comes first), without taking anything. @example `const lane = q.next()` @returns it, or `undefined` when no lane may run. */
  next(): Lane<T> | undefined {
    return this.turns.peek()?.lane;
  }

  /**
   * The lane at its cap whose head came first, among those not gated: the one to lend an idle
   * worker to when `next()` has none. `take` from it counts as from any lane.
   *
   * @example `const lane = q.next() ?? (idle > 1 ? q.nextOver() : undefined)`
   * @returns it, or `undefined` when no lane at its cap has items.
   */
  nextOver(): Lane<T> | undefined {
    return this.overs.peek()?.lane;
  }

  /**
   * Takes the oldest item of a lane that may run (or of one at its cap, lent a worker), to run it:
   * the lane counts one more running item (until `finish`) and takes its place by its next item.
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
   * One item `take`n from the lane stopped running; a lane that was at its cap may run again.
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
   * Sits a lane out until `ungate`; its items stay, and it still takes pushes.
   *
   * @example `q.gate(lane); timers.set(lane, now + waitMs)`
   * @param lane - the lane.
   */
  gate(lane: Lane<T>): void {
    lane.gated = true;
    this.settle(lane);
  }

  /**
   * Lets a gated lane run again (in its head's place), if it has items and is under its cap.
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
    this.unplace(lane);
    this.count -= lane.items.size;
    lane.instants.drain();
    lane.ties.drain();
    return lane.items.drain();
  }

  /** Empties every lane. @example `q.clear()` */
  clear(): void {
    this.lanes.clear();
    this.turns.clear();
    this.overs.clear();
    this.count = 0;
  }

  private takeFrom(lane: Lane<T>): T {
    // Only lanes with items may run.
    const item = lane.items.shift() as T;
    lane.instants.shift();
    lane.ties.shift();
    this.count--;
    this.unplace(lane);
    this.settle(lane);
    return item;
  }

  private unplace(lane: Lane<T>): void {
    if (lane.place === 'turn') this.turns.remove(lane.turn);
    else if (lane.place === 'over') this.overs.remove(lane.turn);
    lane.place = 'out';
  }

  // Restores the invariant: in `turns` exactly when it may run, in `overs` when only its cap holds it
  // back; kept only while it holds anything.
  private settle(lane: Lane<T>): void {
    const ready = lane.items.size > 0 && !lane.gated;
    const place = !ready ? 'out' : lane.running < this.cap ? 'turn' : 'over';
    if (place !== lane.place) {
      this.unplace(lane);
      lane.place = place;
      if (place !== 'out') {
        lane.turn.tie = lane.ties.peek() ?? 0;
        (place === 'turn' ? this.turns : this.overs).push(lane.turn, lane.instants.peek() ?? 0);
      }
    }
    if (lane.items.size === 0 && lane.running === 0 && !lane.gated) this.lanes.delete(lane.name);
  }
}
