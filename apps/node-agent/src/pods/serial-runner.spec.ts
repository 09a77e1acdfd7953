import { SerialRunner } from './serial-runner';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function fail(error: unknown): never {
  throw error;
}

describe('SerialRunner', () => {
  afterEach(() => jest.useRealTimers());

  it('runs one task at a time; requests while it runs coalesce into one more run', async () => {
    let runs = 0;
    let gate = deferred();
    const runner = new SerialRunner(async () => {
      runs++;
      await gate.promise;
    }, fail);
    runner.request();
    expect(runner.busy).toBe(true);
    runner.request();
    runner.request();
    runner.request();
    expect(runs).toBe(1);
    const first = gate;
    gate = deferred();
    first.resolve();
    await flush();
    expect(runs).toBe(2);
    gate.resolve();
    await flush();
    expect(runs).toBe(2);
    expect(runner.busy).toBe(false);
  });

  it('goes on after a task throws, handing the error over', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const runner = new SerialRunner(
      async () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      (error) => errors.push(error),
    );
    runner.request();
    await flush();
    runner.request();
    await flush();
    expect(errors.map((e) => (e as Error).message)).toEqual(['run 1', 'run 2']);
    expect(runner.busy).toBe(false);
  });

  it('keeps the earliest of several delayed requests, and runs no more once stopped', async () => {
    jest.useFakeTimers({ now: 0 });
    let runs = 0;
    const runner = new SerialRunner(
      async () => void runs++,
      fail,
      () => Date.now(),
    );
    runner.request(5_000);
    runner.request(1_000);
    runner.request(3_000);
    await jest.advanceTimersByTimeAsync(999);
    expect(runs).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    // The later timers were replaced by the earliest: nothing else is due.
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
    runner.request(2_000);
    runner.stop();
    runner.request();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });
});
