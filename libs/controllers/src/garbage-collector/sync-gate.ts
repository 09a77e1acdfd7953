/**
 * Bounds the garbage collector's syncs: at most `limit` at once over every resource type's queue
 * (`--concurrent-gc-syncs`), and never two of the same object at once, since one object's uid can
 * be queued by the monitors of its own type, its owners' and its dependents'.
 */
export class SyncGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly busy = new Map<string, Promise<void>>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`a sync limit must be a positive integer, not ${limit}`);
  }

  /** Runs `fn` once a slot is free and no other run of `key` is in flight. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    // The slot is taken before the key: whoever holds a key then always holds a slot and is running,
    // so waiting for a key never waits on a slot (no deadlock).
    await this.acquire();
    try {
      for (let other = this.busy.get(key); other !== undefined; other = this.busy.get(key)) await other;
      let finished!: () => void;
      this.busy.set(key, new Promise<void>((resolve) => (finished = resolve)));
      try {
        return await fn();
      } finally {
        this.busy.delete(key);
        finished();
      }
    } finally {
      this.release();
    }
  }

  /** Syncs running now. */
  get running(): number {
    return this.active;
  }

  private acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `active` stays as it is.
    if (next) next();
    else this.active--;
  }
}
