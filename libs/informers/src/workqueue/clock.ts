/** A pending callback scheduled on a {@link QueueClock}. */
export interface QueueTimer {
  /** Cancels the callback; a no-op once it has run. */
  cancel(): void;
}

/**
 * The time source of the work queue and its rate limiters. Injected so that tests move time by hand
 * instead of sleeping.
 */
export interface QueueClock {
  /** Milliseconds on a monotonic scale; only differences between two readings mean anything. */
  now(): number;
  /** Runs `callback` once, after `delayMs` milliseconds of this clock. */
  setTimeout(callback: () => void, delayMs: number): QueueTimer;
}

/**
 * The process clock. `performance.now()` is monotonic, so a wall-clock step (NTP, daylight saving)
 * neither fires delayed keys early nor holds them back. Its timers are unref'd: a queue that nobody
 * shut down must not keep the process alive.
 */
export const realQueueClock: QueueClock = {
  now: () => performance.now(),
  setTimeout(callback: () => void, delayMs: number): QueueTimer {
    const handle = setTimeout(callback, delayMs);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};
