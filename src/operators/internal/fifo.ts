// The FIFO behind each lane of the fair queue (and anywhere a queue may grow large).

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

  /** The oldest item, left in place. @example `f.peek()` @returns it, or `undefined` when empty. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
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
