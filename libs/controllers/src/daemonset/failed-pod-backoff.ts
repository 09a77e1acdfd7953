/** Kubernetes' backoff for deleting a node's failed daemon pods: 1 s at first, doubling, at most 15 minutes. */
export const FAILED_POD_BACKOFF_INITIAL_MS = 1_000;
export const FAILED_POD_BACKOFF_MAX_MS = 15 * 60_000;

interface Entry {
  delayMs: number;
  lastUpdateMs: number;
}

/**
 * client-go's flowcontrol.Backoff as the DaemonSet controller uses it, one entry per DaemonSet
 * generation and node: a daemon pod the node agent keeps failing (a port taken, a refused admission)
 * is deleted and recreated after 1 s, 2 s, 4 s ... instead of in a hot loop. An entry idle for twice
 * the maximum starts over; `gc` drops those.
 */
export class FailedPodBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly initialMs = FAILED_POD_BACKOFF_INITIAL_MS,
    private readonly maxMs = FAILED_POD_BACKOFF_MAX_MS,
  ) {}

  /** The current delay of `key` (0 when it has none). */
  delayMs(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  /** Within the delay since the last `next` (IsInBackOffSinceUpdate). */
  inBackoff(key: string, nowMs: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, nowMs)) return false;
    return nowMs - entry.lastUpdateMs < entry.delayMs;
  }

  /** Records an attempt: the delay starts at the initial one, or doubles up to the maximum. */
  next(key: string, nowMs: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, nowMs)) {
      this.entries.set(key, { delayMs: this.initialMs, lastUpdateMs: nowMs });
      return;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.maxMs);
    entry.lastUpdateMs = nowMs;
  }

  /** Forgets entries idle for twice the maximum delay (Kubernetes collects them every minute). */
  gc(nowMs: number): void {
    for (const [key, entry] of this.entries) if (this.expired(entry, nowMs)) this.entries.delete(key);
  }

  private expired(entry: Entry, nowMs: number): boolean {
    return nowMs - entry.lastUpdateMs > 2 * this.maxMs;
  }
}
