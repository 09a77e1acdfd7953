import { isRevisionAtLeast } from './revision';

interface Waiter {
  wanted: string;
  /** Resolves early when this key's object reaches the revision. */
  key?: string;
  resolve(reached: boolean): void;
  cancelTimer(): void;
}

/**
 * Pending "wait until the cache has seen revision R" requests. Few are pending at a time (one per
 * reconcile that follows its own write), so each advance simply checks them all.
 */
export class RevisionWaiters {
  private readonly waiters = new Set<Waiter>();

  get size(): number {
    return this.waiters.size;
  }

  wait(wanted: string, timeoutMs: number, key?: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        wanted,
        key,
        resolve: (reached) => {
          this.waiters.delete(waiter);
          waiter.cancelTimer();
          resolve(reached);
        },
        cancelTimer: () => undefined,
      };
      if (Number.isFinite(timeoutMs)) {
        const timer = setTimeout(() => waiter.resolve(false), Math.max(0, timeoutMs));
        timer.unref?.();
        waiter.cancelTimer = () => clearTimeout(timer);
      }
      this.waiters.add(waiter);
    });
  }

  /** The store as a whole has seen `revision`. */
  revisionReached(revision: string): void {
    for (const waiter of [...this.waiters]) {
      if (isRevisionAtLeast(revision, waiter.wanted)) waiter.resolve(true);
    }
  }

  /** The object filed under `key` changed at `revision`. */
  keyReached(key: string, revision: string): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.key === key && isRevisionAtLeast(revision, waiter.wanted)) waiter.resolve(true);
    }
  }

  /** Every pending wait ends unreached (the store is closing). */
  abandonAll(): void {
    for (const waiter of [...this.waiters]) waiter.resolve(false);
  }
}
