export interface BoundedFrequencyRunnerOptions {
  /** Tokens refill one per this many ms; 0 runs on every request. */
  minIntervalMs: number;
  /** The longest time between two runs, even with no request. */
  maxIntervalMs: number;
  /** How many runs may follow each other without waiting for `minIntervalMs`. */
  burst: number;
  now?: () => number;
}

/**
 * Runs a function when asked, but not more often than a token bucket allows, and at least every
 * `maxIntervalMs` (kube-proxy's BoundedFrequencyRunner): a change arriving at a quiet moment is
 * programmed at once, a storm of changes is folded into few runs, and a failed run is retried.
 * Runs never overlap; a request during a run asks for one more after it.
 */
export class BoundedFrequencyRunner {
  private tokens: number;
  private lastRefill: number;
  private lastRun: number;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Infinity;
  private running = false;
  private rerun = false;
  private stopped = false;
  private retryAt = Infinity;
  private readonly now: () => number;

  constructor(
    private readonly fn: () => Promise<void>,
    private readonly options: BoundedFrequencyRunnerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.tokens = options.burst;
    this.lastRefill = this.now();
    this.lastRun = this.now();
  }

  /** Starts the periodic runs. */
  start(): void {
    this.schedule(this.now() + this.options.maxIntervalMs);
  }

  /** Asks for a run: at once if a token is there, else when the next one is. */
  run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.refill();
    if (this.options.minIntervalMs === 0 || this.tokens >= 1) {
      this.schedule(this.now());
      return;
    }
    this.schedule(this.lastRefill + this.options.minIntervalMs * (1 - this.tokens));
  }

  /** After a failure: run again no later than `delayMs` from now. */
  retryAfter(delayMs: number): void {
    this.retryAt = Math.min(this.retryAt, this.now() + delayMs);
    this.schedule(this.retryAt);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Resolves once no run is in progress. */
  async idle(): Promise<void> {
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private refill(): void {
    const { minIntervalMs, burst } = this.options;
    const now = this.now();
    if (minIntervalMs > 0) this.tokens = Math.min(burst, this.tokens + (now - this.lastRefill) / minIntervalMs);
    this.lastRefill = now;
  }

  private schedule(at: number): void {
    if (this.stopped || at >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => void this.fire(), Math.max(0, at - this.now()));
  }

  private async fire(): Promise<void> {
    this.timer = undefined;
    this.dueAt = Infinity;
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.refill();
    if (this.options.minIntervalMs > 0) this.tokens = Math.max(0, this.tokens - 1);
    this.running = true;
    this.retryAt = Infinity;
    try {
      await this.fn();
    } catch {
      // The function reports its own failures (and asks for a retry); a throw must not stop the loop.
    } finally {
      this.running = false;
      this.lastRun = this.now();
    }
    if (this.stopped) return;
    this.schedule(this.lastRun + this.options.maxIntervalMs);
    if (this.rerun) {
      this.rerun = false;
      this.run();
    }
  }
}
