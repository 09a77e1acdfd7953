/**
 * Kubernetes' exponential backoff by key (client-go's flowcontrol.Backoff), for restarting crashed
 * containers and retrying image pulls: the first retry is at once, then 10 s doubling to 5 min after
 * each failure; an entry untouched for twice the maximum starts over.
 */
export class KeyedBackoff {
  private readonly entries = new Map<string, { delayMs: number; lastUpdate: number }>();

  constructor(
    readonly initialMs = 10_000,
    readonly maxMs = 300_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current delay of `key`, 0 when it has none. */
  get(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  /** The delay in effect for `key`: 0 when it has none, or its entry was left alone for twice the maximum. */
  activeDelay(key: string): number {
    const entry = this.entries.get(key);
    if (!entry || this.now() - entry.lastUpdate > 2 * this.maxMs) return 0;
    return entry.delayMs;
  }

  /** Whether `eventTime` (the last failure) is less than the current delay ago. */
  isInBackoffSince(key: string, eventTime: number): boolean {
    const delay = this.activeDelay(key);
    return delay > 0 && this.now() - eventTime < delay;
  }

  /** Records a failure: the delay starts at the initial value or doubles, up to the maximum. */
  next(key: string, eventTime: number): void {
    const entry = this.entries.get(key);
    if (!entry || eventTime - entry.lastUpdate > 2 * this.maxMs) {
      this.entries.set(key, { delayMs: this.initialMs, lastUpdate: eventTime });
      return;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.maxMs);
    entry.lastUpdate = eventTime;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every key starting with `prefix` (a pod's, once it is gone). */
  forgetPrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
