import { TokenBucket } from '@svc/client';

/**
 * The nodes of one zone waiting for their NoExecute taint, applied at a rate (Kubernetes'
 * RateLimitedTimedQueue with a token bucket of burst 1): first come, first tainted; a rate of 0 stops
 * tainting in the zone.
 */
export class ZoneTainter {
  private readonly queue = new Map<string, number>();
  private limiter: TokenBucket | undefined;

  constructor(private qps: number) {
    this.limiter = qps > 0 ? new TokenBucket(qps, 1) : undefined;
  }

  get rate(): number {
    return this.qps;
  }

  /** Kubernetes' SwapLimiter: a new rate, the bucket starting anew. */
  setRate(qps: number): void {
    if (qps === this.qps) return;
    this.qps = qps;
    this.limiter = qps > 0 ? new TokenBucket(qps, 1) : undefined;
  }

  /** Queues the node; false when it is already queued. */
  add(name: string, now = Date.now()): boolean {
    if (this.queue.has(name)) return false;
    this.queue.set(name, now);
    return true;
  }

  remove(name: string): boolean {
    return this.queue.delete(name);
  }

  has(name: string): boolean {
    return this.queue.has(name);
  }

  get size(): number {
    return this.queue.size;
  }

  /**
   * Takes queued nodes while the rate allows, oldest first, handing each to `taint`: true drops it
   * from the queue, a number of milliseconds tries it again after that long.
   */
  async drain(taint: (name: string) => Promise<true | number>, now = Date.now()): Promise<void> {
    for (const [name, at] of [...this.queue].sort((a, b) => a[1] - b[1])) {
      if (at > now) continue;
      if (this.limiter === undefined || !this.limiter.tryAccept()) return;
      const outcome = await taint(name);
      if (!this.queue.has(name) || this.queue.get(name) !== at) continue;
      if (outcome === true) this.queue.delete(name);
      else this.queue.set(name, Date.now() + outcome);
    }
  }
}
