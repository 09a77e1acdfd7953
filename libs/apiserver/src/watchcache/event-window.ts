import type { StoredObject } from '@svc/storage';
import type { CacheEntry } from './cache-events';

export const MIN_WINDOW_CAPACITY = 100;
export const MAX_WINDOW_CAPACITY = 100 * 1024;
/** How long events are meant to stay in the window: a bookmark interval plus a margin, as in Kubernetes. */
export const DEFAULT_EVENT_FRESH_MS = 75_000;

export interface EventWindowOptions {
  /** A fixed capacity; unset: sized between the bounds to keep `freshMs` worth of events. */
  capacity?: number;
  minCapacity?: number;
  maxCapacity?: number;
  freshMs?: number;
}

/**
 * The sliding window of the latest changes of one resource: a ring buffer whose capacity doubles while
 * it is full of events younger than `freshMs` and halves once its newest quarter is older than that,
 * between `minCapacity` and `maxCapacity` (Kubernetes' watchCache sizing).
 *
 * `oldestWatchable` is the smallest revision a watch can start from with nothing missed: the start
 * revision of the cache, then the revision of the last event pushed out. It is exact, not the oldest
 * event's revision minus one, because revisions of one resource are not contiguous in the store.
 */
export class EventWindow<T extends StoredObject> {
  private ring: Array<CacheEntry<T> | undefined>;
  private start = 0;
  private end = 0;
  private oldest: number;
  private readonly fixed: boolean;
  private readonly minCapacity: number;
  private readonly maxCapacity: number;
  private readonly freshMs: number;

  constructor(startRevision: number, options: EventWindowOptions = {}) {
    this.fixed = options.capacity !== undefined;
    this.minCapacity = Math.max(1, options.capacity ?? options.minCapacity ?? MIN_WINDOW_CAPACITY);
    this.maxCapacity = Math.max(this.minCapacity, options.capacity ?? options.maxCapacity ?? MAX_WINDOW_CAPACITY);
    this.freshMs = options.freshMs ?? DEFAULT_EVENT_FRESH_MS;
    this.ring = new Array<CacheEntry<T> | undefined>(this.minCapacity);
    this.oldest = startRevision;
  }

  get capacity(): number {
    return this.ring.length;
  }

  get size(): number {
    return this.end - this.start;
  }

  /** Watches from this revision or later can be served from the window. */
  get oldestWatchable(): number {
    return this.oldest;
  }

  /** Empties the window; the cache was rebuilt from a list at `revision`. */
  reset(revision: number): void {
    this.ring = new Array<CacheEntry<T> | undefined>(this.fixed ? this.ring.length : this.minCapacity);
    this.start = 0;
    this.end = 0;
    this.oldest = revision;
  }

  push(entry: CacheEntry<T>): void {
    if (!this.fixed) this.resize(entry.recordedAt);
    if (this.isFull()) {
      const evicted = this.at(this.start);
      this.ring[this.start % this.ring.length] = undefined;
      this.start++;
      this.oldest = evicted.revision;
    }
    this.ring[this.end % this.ring.length] = entry;
    this.end++;
  }

  /** The events after `revision`, oldest first; the caller checked `oldestWatchable`. */
  since(revision: number): Array<CacheEntry<T>> {
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision > revision) hi = mid;
      else lo = mid + 1;
    }
    const out = new Array<CacheEntry<T>>(this.end - lo);
    for (let i = lo; i < this.end; i++) out[i - lo] = this.at(i);
    return out;
  }

  private at(index: number): CacheEntry<T> {
    return this.ring[index % this.ring.length] as CacheEntry<T>;
  }

  private isFull(): boolean {
    return this.end - this.start === this.ring.length;
  }

  private resize(now: number): void {
    if (!this.isFull()) return;
    const capacity = this.ring.length;
    if (now - this.at(this.start).recordedAt < this.freshMs) {
      if (capacity < this.maxCapacity) this.reallocate(Math.min(capacity * 2, this.maxCapacity));
    } else if (now - this.at(this.end - Math.max(1, capacity >> 2)).recordedAt > this.freshMs) {
      if (capacity > this.minCapacity) this.reallocate(Math.max(capacity >> 1, this.minCapacity));
    }
  }

  private reallocate(capacity: number): void {
    const keep = Math.min(this.size, capacity);
    const ring = new Array<CacheEntry<T> | undefined>(capacity);
    const first = this.end - keep;
    if (first > this.start) this.oldest = this.at(first - 1).revision;
    for (let i = 0; i < keep; i++) ring[i] = this.at(first + i);
    this.ring = ring;
    this.start = 0;
    this.end = keep;
  }
}
