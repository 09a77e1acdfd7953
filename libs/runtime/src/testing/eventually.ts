/** Polls `check` until it stops throwing, for at most `timeoutMs`; rethrows its last error. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
