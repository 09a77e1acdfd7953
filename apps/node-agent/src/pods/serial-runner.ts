/**
 * Runs one task at a time, as the kubelet runs each pod's syncs on one goroutine: a request while
 * the task runs makes it run once more right after (requests coalesce, none is lost, none runs
 * twice at once); a delayed request arms a timer, and of several the earliest wins.
 */
export class SerialRunner {
  private running = false;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** When the armed timer fires (ms since the epoch). */
  private timerAt = Infinity;

  constructor(
    private readonly task: () => Promise<void>,
    /** A task that threw: the runner goes on (the handler may ask for a retry). */
    private readonly onError: (error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the task is running now. */
  get busy(): boolean {
    return this.running;
  }

  /** Runs the task now (or once more after the current run), or in `delayMs` unless an earlier run is due. */
  request(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) return this.arm(delayMs);
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  /** No more runs: the armed timer is cleared; a run in progress finishes. */
  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(delayMs: number): void {
    const at = this.now() + delayMs;
    if (this.timer && this.timerAt <= at) return;
    this.disarm();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.request();
    }, delayMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        try {
          await this.task();
        } catch (error) {
          this.onError(error);
        }
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
  }
}
