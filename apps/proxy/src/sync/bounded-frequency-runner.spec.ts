import { BoundedFrequencyRunner } from './bounded-frequency-runner';

describe('BoundedFrequencyRunner', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function make(minIntervalMs: number) {
    const runs: number[] = [];
    const runner = new BoundedFrequencyRunner(
      async () => {
        runs.push(Date.now());
      },
      { minIntervalMs, maxIntervalMs: 30_000, burst: 2 },
    );
    return { runner, runs };
  }

  it('runs at once when quiet, folds a storm into one run per interval after a burst of two', async () => {
    const { runner, runs } = make(1_000);
    const start = Date.now();
    runner.run();
    await jest.advanceTimersByTimeAsync(0);
    runner.run();
    await jest.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 10; i++) runner.run();
    await jest.advanceTimersByTimeAsync(999);
    expect(runs.map((t) => t - start)).toEqual([0, 0]);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs.map((t) => t - start)).toEqual([0, 0, 1_000]);
    runner.stop();
  });

  it('runs every maxInterval without requests, and again after a retry delay', async () => {
    const { runner, runs } = make(1_000);
    const start = Date.now();
    runner.start();
    await jest.advanceTimersByTimeAsync(30_000);
    expect(runs.map((t) => t - start)).toEqual([30_000]);
    runner.retryAfter(5_000);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs.map((t) => t - start)).toEqual([30_000, 35_000]);
    runner.stop();
  });

  it('with no minimum interval runs on every request', async () => {
    const { runner, runs } = make(0);
    for (let i = 0; i < 5; i++) {
      runner.run();
      await jest.advanceTimersByTimeAsync(0);
    }
    expect(runs).toHaveLength(5);
    runner.stop();
  });
});
