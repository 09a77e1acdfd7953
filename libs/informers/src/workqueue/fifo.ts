/**
 * First-in first-out buffer with O(1) push and shift. `Array.prototype.shift` is O(n), which turns a
 * queue of a hundred thousand keys into a quadratic drain.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns the oldest item; call only when `length > 0`. */
  shift(): T {
    if (this.head >= this.items.length) throw new RangeError('shift on an empty Fifo');
    const item = this.items[this.head];
    // Drop the reference so a processed key can be collected.
    (this.items as Array<T | undefined>)[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
