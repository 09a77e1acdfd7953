import { eventually } from '../testing/eventually';
import { runQueueWorker } from './queue-worker';
import { RateLimitingQueue } from './rate-limiting-queue';

class Gone extends Error {}

describe('runQueueWorker', () => {
  it('syncs each key, retries a failure with backoff, drops one it is told not to retry, and ends when the queue shuts down', async () => {
    const queue = new RateLimitingQueue<string>();
    const seen: string[] = [];
    let flaky = 0;
    const worker = runQueueWorker(
      queue,
      async (key) => {
        seen.push(key);
        if (key === 'flaky' && ++flaky < 3) throw new Error('not yet');
        if (key === 'gone') throw new Gone();
      },
      (error) => !(error instanceof Gone),
    );
    for (const key of ['a', 'flaky', 'gone']) queue.add(key);
    await eventually(() => {
      expect(seen.filter((k) => k === 'flaky')).toHaveLength(3);
      expect(seen.filter((k) => k === 'gone')).toHaveLength(1);
    });
    // Success forgot the backoff of the key that failed before.
    expect(queue.numRequeues('flaky')).toBe(0);
    queue.shutDown();
    await worker;
  });
});
