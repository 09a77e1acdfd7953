/**
 * Polls `check` until it stops throwing (returns its value) or `timeoutMs` passes (throws its last
 * error). The one `eventually` of the project's tests; the framework's testing kit re-exports it.
 */
export async function eventually<R>(check: () => R | Promise<R>, timeoutMs = 5_000, intervalMs = 10): Promise<R> {
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

/** Lets pending timers, immediates and promise callbacks run. */
export function settle(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
