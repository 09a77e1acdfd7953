import { TokenBucket } from '@svc/client';
import type { AuditBackend } from './audit-backend';
import type { AuditEvent } from './audit-event';

export interface BatchOptions {
  /** Events held while waiting to be sent; more are dropped (never waited for). */
  bufferSize: number;
  /** Events per batch. */
  maxBatchSize: number;
  /** A partial batch is sent after this long. */
  maxBatchWaitMs: number;
  /** Batches per second and burst when throttling; undefined means no throttle. */
  throttle?: { qps: number; burst: number };
  /** Told once per run of drops (and the count), so a flood cannot flood the log too. */
  onDrop?(dropped: number): void;
}

/** How long shutdown waits for the delegate to take what is buffered. */
const SHUTDOWN_FLUSH_MS = 10_000;

/**
 * Kubernetes' batch mode: events are queued in a bounded buffer and handed to the delegate in batches
 * of up to `maxBatchSize`, one batch at a time, at most `throttle.qps` per second. A request only
 * appends to the buffer, so a slow or dead delegate costs dropped events, never request latency.
 */
export function bufferedBackend(delegate: AuditBackend, options: BatchOptions): AuditBackend {
  const buffer: AuditEvent[] = [];
  const bucket = options.throttle ? new TokenBucket(options.throttle.qps, options.throttle.burst) : undefined;
  let sending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let dropped = 0;
  let lastDropReport = 0;
  let stopped = false;

  const sendOne = async (): Promise<void> => {
    if (bucket && !stopped) await bucket.wait();
    const batch = buffer.splice(0, options.maxBatchSize);
    if (batch.length === 0) return;
    try {
      await delegate.processEvents(batch);
    } catch {
      // The delegate reports its own failures; a batch is not retried past them.
    }
  };
  /** Sends full batches, and one partial batch when its wait is over. */
  const run = (partial: boolean): void => {
    sending = (async () => {
      while (buffer.length >= options.maxBatchSize || (partial && buffer.length > 0)) {
        partial = false;
        await sendOne();
      }
    })().finally(() => {
      sending = undefined;
      schedule();
    });
  };
  const schedule = (): void => {
    if (sending || stopped) return;
    if (buffer.length >= options.maxBatchSize) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      run(false);
    } else if (buffer.length > 0 && !timer) {
      timer = setTimeout(() => {
        timer = undefined;
        if (!sending) run(true);
      }, options.maxBatchWaitMs);
      timer.unref();
    }
  };
  const reportDrops = (force: boolean): void => {
    if (dropped === 0 || (!force && Date.now() - lastDropReport < 10_000)) return;
    lastDropReport = Date.now();
    options.onDrop?.(dropped);
    dropped = 0;
  };

  return {
    processEvents(events) {
      let accepted = true;
      for (const event of events) {
        if (buffer.length >= options.bufferSize || stopped) {
          dropped++;
          accepted = false;
        } else {
          buffer.push(event);
        }
      }
      if (!accepted) reportDrops(false);
      schedule();
      return accepted;
    },
    async shutdown() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const flush = (async () => {
        if (sending) await sending;
        while (buffer.length > 0) await sendOne();
      })();
      await Promise.race([flush, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_FLUSH_MS).unref())]);
      reportDrops(true);
      await delegate.shutdown();
    },
  };
}
