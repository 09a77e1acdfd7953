import { StorageError } from './storage-error';

export const DEFAULT_TOO_LARGE_WAIT_MS = 3_000;

/**
 * Waits for a store to reach a revision. The backend calls `notify()` whenever its revision may have
 * advanced; `pollMs` bounds the wait between reads for revisions that arrive without a notification
 * (another process's writes).
 */
export class RevisionWaiter {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly pollMs: number) {}

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with a revision >= target, or fails with TooLargeResourceVersion after `timeoutMs`. */
  async waitFor(target: number, timeoutMs: number, read: () => number | Promise<number>): Promise<number> {
    let current = await read();
    const deadline = Date.now() + timeoutMs;
    while (current < target) {
      const left = deadline - Date.now();
      if (left <= 0) throw StorageError.tooLarge(target, current);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.listeners.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(this.pollMs, left));
        this.listeners.add(done);
      });
      current = await read();
    }
    return current;
  }
}
