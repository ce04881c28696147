// Timers of the keyed operators: one binary min-heap of deadlines driven by a single scheduled
// action, instead of one scheduler action per key (100,000 debounced keys would be 100,000 timers).

/**
 * Something with a deadline that can sit in a {@link DeadlineHeap}. `heapIndex` is maintained by
 * the heap (-1 when outside) so removal is O(log n) without searching.
 *
 * @example
 * ```ts
 * const t: Timed = { at: 0, heapIndex: -1 };
 * ```
 */
export interface Timed {
  at: number;
  heapIndex: number;
}

/**
 * A min-heap of {@link Timed} items ordered by `at`; ties keep no particular order, unless a subclass
 * orders them (`before`).
 *
 * @example
 * ```ts
 * const h = new DeadlineHeap<Timed>();
 * const a = { at: 0, heapIndex: -1 };
 * h.push(a, 10);
 * h.peek() === a; // true
 * ```
 */
export class DeadlineHeap<T extends Timed> {
  private readonly items: T[] = [];

  /** Items in the heap. @example `h.size` @returns the count. */
  get size(): number {
    return this.items.length;
  }

  /** The earliest item. @example `h.peek()?.at` @returns it, or `undefined` when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  /**
   * Inserts an item (which must not be in the heap) with a deadline.
   *
   * @example `h.push(entry, now + 5)`
   * @param item - the item.
   * @param at - its deadline.
   */
  push(item: T, at: number): void {
    item.at = at;
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  /** Removes the earliest item. @example `h.pop()` @returns it, or `undefined` when empty. */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /**
   * Removes an item if it is in the heap.
   *
   * @example `h.remove(entry)`
   * @param item - the item.
   */
  remove(item: T): void {
    const i = item.heapIndex;
    if (i < 0 || this.items[i] !== item) return;
    item.heapIndex = -1;
    const last = this.items.pop();
    if (last === undefined || last === item) return;
    this.items[i] = last;
    last.heapIndex = i;
    this.down(i);
    this.up(last.heapIndex);
  }

  /** Removes every item. @example `h.clear()` */
  clear(): void {
    for (const item of this.items) item.heapIndex = -1;
    this.items.length = 0;
  }

  /**
   * Whether `a` comes out before `b`: the earlier deadline. A subclass may break ties.
   *
   * @example `h.before(a, b)`
   * @param a - an item.
   * @param b - another.
   * @returns true when `a` goes first.
   */
  protected before(a: T, b: T): boolean {
    return a.at < b.at;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    if (item === undefined) return;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p];
      if (parent === undefined || !this.before(item, parent)) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    items[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const items = this.items;
    const item = items[i];
    if (item === undefined) return;
    const n = items.length;
    for (;;) {
      let c = 2 * i + 1;
      const left = items[c];
      if (left === undefined) break;
      let child = left;
      const right = items[c + 1];
      if (c + 1 < n && right !== undefined && this.before(right, left)) {
        c++;
        child = right;
      }
      if (!this.before(child, item)) break;
      items[i] = child;
      child.heapIndex = i;
      i = c;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}
