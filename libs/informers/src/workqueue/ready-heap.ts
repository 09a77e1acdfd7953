/** A key waiting in a delaying queue until its ready time. */
export interface ReadyEntry<K> {
  readonly id: unknown;
  readonly key: K;
  readyAt: number;
  /** Insertion order, so that keys due at the same moment leave in the order they came. */
  readonly seq: number;
  index: number;
}

/**
 * Min-heap of waiting keys ordered by ready time, one entry per key identity, so a single timer set
 * for the head serves every delayed key.
 */
export class ReadyHeap<K> {
  private readonly entries: ReadyEntry<K>[] = [];
  private readonly byId = new Map<unknown, ReadyEntry<K>>();
  private seq = 0;

  get size(): number {
    return this.entries.length;
  }

  peek(): ReadyEntry<K> | undefined {
    return this.entries[0];
  }

  /**
   * Schedules `key` at `readyAt`; a key already waiting keeps the earlier of its two times, so a
   * later request never postpones an earlier one.
   */
  schedule(id: unknown, key: K, readyAt: number): void {
    const existing = this.byId.get(id);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const entry: ReadyEntry<K> = { id, key, readyAt, seq: this.seq++, index: this.entries.length };
    this.entries.push(entry);
    this.byId.set(id, entry);
    this.up(entry.index);
  }

  pop(): ReadyEntry<K> | undefined {
    const top = this.entries[0];
    if (!top) return undefined;
    const last = this.entries.pop() as ReadyEntry<K>;
    if (last !== top) {
      this.entries[0] = last;
      last.index = 0;
      this.down(0);
    }
    this.byId.delete(top.id);
    top.index = -1;
    return top;
  }

  clear(): void {
    this.entries.length = 0;
    this.byId.clear();
  }

  private less(a: ReadyEntry<K>, b: ReadyEntry<K>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.entries[i];
    const b = this.entries[j];
    this.entries[i] = b;
    this.entries[j] = a;
    b.index = i;
    a.index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.entries[i], this.entries[parent])) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.entries[left], this.entries[smallest])) smallest = left;
      if (right < n && this.less(this.entries[right], this.entries[smallest])) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
