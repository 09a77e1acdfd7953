import { systemClock, type Clock } from './clock';

/**
 * A token bucket in the shape of Go's `x/time/rate` limiter that client-go uses: it starts full
 * with `burst` tokens, refills at `qps` per second, and a waiter reserves its token at once (the
 * count may go negative), so waiters are served in arrival order without a queue.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(qps > 0)) throw new RangeError(`token bucket qps must be positive, got ${qps}`);
    if (!(burst >= 1)) throw new RangeError(`token bucket burst must be at least 1, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes a token if one is there now; never waits. */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Waits for a token. An abort gives the reserved token back, so a cancelled request does not
   * slow the ones behind it.
   */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay <= 0) return;
    try {
      await this.clock.sleep(delay, signal);
    } catch (err) {
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw err;
    }
  }

  /** Takes a token, possibly one not yet refilled, and returns how long to wait for it (ms). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
