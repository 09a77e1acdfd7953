import type { EventRecorder, EventType, MetaObject } from '@svc/runtime';

export interface RateLimitedEventsOptions {
  /** Events one object may get at once. Default 25 (client-go's spam filter burst). */
  burst?: number;
  /** One more event is allowed per this many ms. Default 300,000 (client-go: 1 per 5 minutes). */
  refillMs?: number;
  /** Objects tracked before fully refilled buckets are dropped. Default 4096 (client-go's cache size). */
  maxObjects?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Events written in the background, each object limited by a token bucket as client-go's event
 * spam filter does: scaling a ReplicaSet to a thousand pods writes its first 25 "Created pod" events
 * and drops the rest instead of doubling the requests. Never throws and never delays the caller.
 */
export class RateLimitedEvents {
  private readonly buckets = new Map<string, Bucket>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly maxObjects: number;
  private readonly now: () => number;

  constructor(
    private readonly recorder: EventRecorder,
    options: RateLimitedEventsOptions = {},
  ) {
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 300_000;
    this.maxObjects = options.maxObjects ?? 4096;
    this.now = options.now ?? Date.now;
  }

  /** Records the event unless the object's budget is spent; returns whether it was sent. */
  emit(obj: MetaObject, type: EventType, reason: string, message: string): boolean {
    if (!this.take(obj.metadata?.uid || `${obj.metadata?.namespace}/${obj.metadata?.name}`)) return false;
    const write = this.recorder.event(obj, type, reason, message).finally(() => this.pending.delete(write));
    this.pending.add(write);
    return true;
  }

  /** Waits (at most `timeoutMs`) for the events being written. */
  async flush(timeoutMs = 2_000): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  private take(key: string): boolean {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      const refilled = Math.floor((now - bucket.at) / this.refillMs);
      if (refilled > 0) bucket = { tokens: Math.min(this.burst, bucket.tokens + refilled), at: bucket.at + refilled * this.refillMs };
    } else {
      if (this.buckets.size >= this.maxObjects) this.prune(now);
      bucket = { tokens: this.burst, at: now };
    }
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return false;
    }
    this.buckets.set(key, { tokens: bucket.tokens - 1, at: bucket.tokens === this.burst ? now : bucket.at });
    return true;
  }

  /** Forgets objects whose budget has refilled (they behave as new), oldest first if none has. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) / this.refillMs >= this.burst) this.buckets.delete(key);
    }
    if (this.buckets.size >= this.maxObjects) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }
}
