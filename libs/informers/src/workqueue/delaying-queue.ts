import { QueueTimer } from './clock';
import { WorkQueue, WorkQueueInterface } from './queue';
import { ReadyHeap } from './ready-heap';

/** The contract of client-go's `workqueue.DelayingInterface`. */
export interface DelayingWorkQueueInterface<K> extends WorkQueueInterface<K> {
  addAfter(key: K, delayMs: number): void;
}

// Node's timers overflow past 2^31-1 ms (they then fire at once); longer waits re-arm in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A work queue that can add a key later, as client-go's delaying queue behaves. Delayed keys wait
 * in one heap ordered by ready time, served by a single timer set for the head.
 *
 * - A key delayed twice keeps the earlier ready time: a later request never postpones it.
 * - `add` of a delayed key queues it now; its delayed entry still fires later and adds it again
 *   (a no-op if it is still waiting), as in client-go.
 */
export class DelayingQueue<K = string> extends WorkQueue<K> implements DelayingWorkQueueInterface<K> {
  private readonly delayed = new ReadyHeap<K>();
  private timer: QueueTimer | undefined;
  private timerDueAt = Infinity;

  /**
   * Adds `key` once `delayMs` milliseconds have passed; at once for zero or less. Counted as a retry
   * in the metrics. Ignored once the queue is shutting down.
   */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics.retry();
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    this.delayed.schedule(this.identify(key), key, this.clock.now() + delayMs);
    this.arm();
  }

  /** Number of keys waiting for their delay to pass. */
  delayedLen(): number {
    return this.delayed.size;
  }

  override shutDown(): void {
    this.stopDelays();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    this.stopDelays();
    return super.shutDownWithDrain();
  }

  /** Sets the timer for the head of the heap, unless one already fires no later than that. */
  private arm(): void {
    const head = this.delayed.peek();
    if (!head) {
      this.disarm();
      return;
    }
    if (this.timer && this.timerDueAt <= head.readyAt) return;
    this.disarm();
    const now = this.clock.now();
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, head.readyAt - now));
    this.timerDueAt = now + wait;
    this.timer = this.clock.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = this.clock.now();
    for (let head = this.delayed.peek(); head && head.readyAt <= now; head = this.delayed.peek()) {
      this.delayed.pop();
      this.add(head.key);
    }
    // A timer that fired a little early (or a capped long wait) simply re-arms for the head.
    this.arm();
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  private stopDelays(): void {
    this.disarm();
    this.delayed.clear();
  }
}
