/**
 * At most `limit` calls in flight; the rest wait in arrival order. The API client speaks HTTP/1.1,
 * one connection per request in flight: a thousand bindings started at once would open a thousand
 * TLS connections, whose handshakes cost both sides more than the bindings themselves (Kubernetes'
 * client multiplexes them over one HTTP/2 connection instead).
 */
export class InFlightLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await call();
    } finally {
      this.release();
    }
  }

  private release(): void {
    if (this.head < this.waiting.length) {
      // The slot passes straight to the next caller: running stays the same.
      const next = this.waiting[this.head++];
      if (this.head === this.waiting.length) {
        this.waiting.length = 0;
        this.head = 0;
      }
      next();
    } else {
      this.running--;
    }
  }
}
