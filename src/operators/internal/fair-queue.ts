// The ready queue of `reconcile`: one FIFO lane per cluster, served round-robin, so a cluster with
// 50,000 ready keys delays a cluster with one ready key by at most one turn per other busy cluster.

/**
 * A first-in first-out buffer with amortised O(1) `shift` (Array#shift is O(n) on large arrays).
 *
 * @example
 * ```ts
 * const f = new Fifo<number>(); f.push(1); f.push(2); f.shift(); // 1
 * ```
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  /** How many items are buffered. @example `f.size` @returns the count. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Appends an item. @example `f.push(x)` @param item - the item. */
  push(item: T): void {
    this.items.push(item);
  }

  /** Takes the oldest item. @example `f.shift()` @returns it, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    // Clear the slot so a taken item is not kept alive by the buffer.
    this.items[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Empties the buffer. @example `f.drain()` @returns the items, oldest first. */
  drain(): T[] {
    const out = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return out;
  }
}

/**
 * Lanes of FIFOs served round-robin: `shift` takes one item from the lane at the head of the
 * rotation and moves that lane to the back. Only lanes with items are in the rotation, so an item
 * at position p of its lane is taken within p × (number of non-empty lanes) shifts.
 *
 * @example
 * ```ts
 * const q = new FairQueue<string>();
 * q.push('noisy', 'n1'); q.push('noisy', 'n2'); q.push('quiet', 'q1');
 * [q.shift(), q.shift(), q.shift()]; // ['n1', 'q1', 'n2']
 * ```
 */
export class FairQueue<T> {
  // A Map iterates in insertion order; delete + set moves a lane to the back in O(1).
  private readonly lanes = new Map<string, Fifo<T>>();
  private count = 0;

  /** Items in all lanes. @example `q.size` @returns the count. */
  get size(): number {
    return this.count;
  }

  /** Lanes with items. @example `q.laneCount` @returns the count. */
  get laneCount(): number {
    return this.lanes.size;
  }

  /**
   * Appends an item to a lane; a lane that was empty joins the back of the rotation.
   *
   * @example `q.push('east', entry)`
   * @param lane - the lane (a cluster name).
   * @param item - the item.
   */
  push(lane: string, item: T): void {
    let fifo = this.lanes.get(lane);
    if (fifo === undefined) {
      fifo = new Fifo<T>();
      this.lanes.set(lane, fifo);
    }
    fifo.push(item);
    this.count++;
  }

  /**
   * Takes the oldest item of the lane whose turn it is.
   *
   * @example `const next = q.shift()`
   * @returns the item, or `undefined` when every lane is empty.
   */
  shift(): T | undefined {
    const first = this.lanes.entries().next();
    if (first.done === true) return undefined;
    const [lane, fifo] = first.value;
    const item = fifo.shift();
    this.lanes.delete(lane);
    if (fifo.size > 0) this.lanes.set(lane, fifo);
    this.count--;
    return item;
  }

  /**
   * Removes a whole lane.
   *
   * @example `q.dropLane('east')`
   * @param lane - the lane.
   * @returns its items, oldest first.
   */
  dropLane(lane: string): T[] {
    const fifo = this.lanes.get(lane);
    if (fifo === undefined) return [];
    this.lanes.delete(lane);
    this.count -= fifo.size;
    return fifo.drain();
  }

  /** Empties every lane. @example `q.clear()` */
  clear(): void {
    this.lanes.clear();
    this.count = 0;
  }
}
