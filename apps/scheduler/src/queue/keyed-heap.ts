/**
 * A binary heap of items with unique keys, able to update or remove any item by key in O(log n)
 * (Kubernetes' scheduler heap).
 */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    /** True when `a` comes out before `b`. */
    private readonly before: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const at = this.index.get(key);
    return at === undefined ? undefined : this.items[at];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds the item, or replaces the one with the same key. */
  push(item: T): void {
    const key = this.keyOf(item);
    const at = this.index.get(key);
    if (at !== undefined) {
      this.items[at] = item;
      this.fix(at);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    return this.removeAt(0);
  }

  delete(key: string): T | undefined {
    const at = this.index.get(key);
    return at === undefined ? undefined : this.removeAt(at);
  }

  values(): readonly T[] {
    return this.items;
  }

  private removeAt(at: number): T {
    const item = this.items[at];
    const last = this.items.pop()!;
    this.index.delete(this.keyOf(item));
    if (at < this.items.length) {
      this.items[at] = last;
      this.index.set(this.keyOf(last), at);
      this.fix(at);
    }
    return item;
  }

  private fix(at: number): void {
    if (!this.up(at)) this.down(at);
  }

  private up(at: number): boolean {
    let moved = false;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(this.items[at], this.items[parent])) break;
      this.swap(at, parent);
      at = parent;
      moved = true;
    }
    return moved;
  }

  private down(at: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.before(this.items[right], this.items[left]) ? right : left;
      if (!this.before(this.items[child], this.items[at])) return;
      this.swap(at, child);
      at = child;
    }
  }

  private swap(a: number, b: number): void {
    const x = this.items[a];
    this.items[a] = this.items[b];
    this.items[b] = x;
    this.index.set(this.keyOf(this.items[a]), a);
    this.index.set(this.keyOf(this.items[b]), b);
  }
}
