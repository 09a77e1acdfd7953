/** Runs `work(i)` for i in [0, count) with `concurrency` calls in flight; resolves with the elapsed ms. */
export async function atConcurrency(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return performance.now() - started;
}
