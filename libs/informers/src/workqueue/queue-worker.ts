import type { RateLimitingQueue } from './rate-limiting-queue';

/**
 * A worker of a rate-limiting queue (client-go's processNextWorkItem loop): takes one key at a time
 * until the queue shuts down and syncs it; a success forgets the key's backoff, a failure that
 * `retry` accepts queues the key again with backoff, any other is dropped.
 */
export async function runQueueWorker<K>(
  queue: RateLimitingQueue<K>,
  sync: (key: K) => Promise<void>,
  retry: (error: unknown) => boolean = () => true,
): Promise<void> {
  for (;;) {
    const next = await queue.get();
    if (next.shutdown) return;
    try {
      await sync(next.key);
      queue.forget(next.key);
    } catch (error) {
      if (retry(error)) queue.addRateLimited(next.key);
    } finally {
      queue.done(next.key);
    }
  }
}
