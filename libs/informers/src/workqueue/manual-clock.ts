import { QueueClock, QueueTimer } from './clock';

interface PendingTimer {
  readonly dueAt: number;
  readonly seq: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to, for tests of delays and backoff (the role of client-go's
 * FakeClock). Timers run synchronously inside {@link advance}, in due order.
 */
export class ManualQueueClock implements QueueClock {
  private current: number;
  private seq = 0;
  private timers: PendingTimer[] = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): QueueTimer {
    const timer: PendingTimer = {
      dueAt: this.current + Math.max(0, delayMs),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
        this.timers = this.timers.filter((t) => t !== timer);
      },
    };
  }

  /** Number of timers scheduled and not yet run or cancelled. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, running every timer due by then; a timer that a callback schedules
   * within the window runs too, at its own due time.
   */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError('a clock does not go backwards');
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.dueAt);
      if (!next.cancelled) next.callback();
    }
    this.current = target;
  }

  private nextDue(target: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.timers) {
      if (t.dueAt > target) continue;
      if (!best || t.dueAt < best.dueAt || (t.dueAt === best.dueAt && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
