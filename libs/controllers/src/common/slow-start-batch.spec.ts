import { slowStartBatch } from './slow-start-batch';

describe('slowStartBatch', () => {
  it('runs batches of 1, 2, 4, ... in parallel until the count is done', async () => {
    let running = 0;
    const batches: number[] = [];
    let inBatch = 0;
    const outcome = await slowStartBatch(20, 1, async () => {
      running++;
      inBatch++;
      await new Promise((resolve) => setImmediate(resolve));
      if (running === inBatch) batches.push(inBatch);
      running--;
      if (running === 0) inBatch = 0;
    });
    expect(outcome).toEqual({ successes: 20 });
    expect(batches).toEqual([1, 2, 4, 8, 5]);
  });

  it('stops after the first batch with a failure, counting the successes of that batch', async () => {
    let calls = 0;
    const outcome = await slowStartBatch(100, 1, async () => {
      calls++;
      if (calls === 5) throw new Error('quota exceeded');
    });
    // Batches 1 and 2 succeed (3 calls); the batch of 4 has one failure and is the last.
    expect(calls).toBe(7);
    expect(outcome.successes).toBe(6);
    expect((outcome.error as Error).message).toBe('quota exceeded');
  });

  it('does nothing for a count of 0', async () => {
    const fn = jest.fn(async () => undefined);
    expect(await slowStartBatch(0, 1, fn)).toEqual({ successes: 0 });
    expect(fn).not.toHaveBeenCalled();
  });
});
