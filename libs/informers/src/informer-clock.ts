import type { QueueClock, QueueTimer } from './workqueue';

/**
 * The default clock of reflectors and informers. Unlike the work queue's clock its timers keep the
 * process alive: a started informer waiting out a backoff while the API server is down is work in
 * progress, and `stop()` cancels every timer it set.
 */
export const informerClock: QueueClock = {
  now: () => performance.now(),
  setTimeout(callback: () => void, delayMs: number): QueueTimer {
    const handle = setTimeout(callback, delayMs);
    return { cancel: () => clearTimeout(handle) };
  },
};
