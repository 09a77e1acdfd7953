import { PullQueue, serialPulls, StorageError, type StoredObject } from '@svc/storage';
import { filteredEvent, type CacheEntry, type CacheWatchEvent } from './cache-events';

/**
 * One client's watch served by a {@link Cacher}. Pull events with `for await`; leaving the loop or
 * `stop()` ends it without error.
 *
 * Terminal errors, thrown by the iteration after every event already queued was delivered:
 * - `StorageError` WatchOverflow: the consumer fell `bufferLimit` events behind; end the response
 *   stream cleanly, the client watches again from the last revision it saw.
 * - `StorageError` Unavailable: the cache lost its backend and could not resume it; end the stream
 *   cleanly too, the client watches again (and gets a 410 if its revision is gone by then).
 * `Cacher.stop()` (shutdown) ends every watcher without error.
 */
export interface CacheWatcher<T extends StoredObject> extends AsyncIterable<CacheWatchEvent<T>> {
  /** Ends the watch; queued events are dropped. Idempotent. */
  stop(): void;
  /**
   * Hands the events that wait (initial state, replay, queue) to `consumer` at once, and then the next
   * live events as the cacher dispatches them, instead of waking a pull: a pull costs several promise
   * hops per event and watcher.
   * Call it only with nothing in hand: every event a pull returns disarms it (the consumer is busy
   * with that one), and so does the consumer answering false (it cannot take more now); events then
   * queue and are pulled as before, in order. The consumer must not throw.
   */
  deliverDirectly(consumer: DirectConsumer<T>): void;
  /** Resolves when the watch has ended, with the terminal error if there was one. */
  readonly ended: Promise<StorageError | undefined>;
}

/** Takes one live event synchronously; false when it cannot take another now. */
export type DirectConsumer<T extends StoredObject> = (event: CacheWatchEvent<T>) => boolean;

export interface CacheWatcherInit<T extends StoredObject> {
  keyPrefix: string;
  filter?: (object: T) => boolean;
  allowBookmarks: boolean;
  /** Live changes at or below this revision are not delivered. */
  startRevision: number;
  bufferLimit: number;
  /** Delivered first, as they are. */
  initial: Array<CacheWatchEvent<T>>;
  /** Delivered next, through the filter, read lazily so a long replay costs no copy of events. */
  replay: Array<CacheEntry<T>>;
  /** When the client's request times out (ms, cacher clock); a bookmark goes out shortly before. */
  deadline?: number;
  describe: string;
  onEnd: (watcher: CacheWatcherChannel<T>) => void;
}

/**
 * The consumer side of one cache watch: initial events, then a replay of the event window, then live
 * events pushed by the cacher's dispatch into a bounded queue. Pushing never waits: a consumer that
 * lets `bufferLimit` live events pile up is cut off, so one slow client never holds up the others.
 */
export class CacheWatcherChannel<T extends StoredObject> implements CacheWatcher<T> {
  readonly ended: Promise<StorageError | undefined>;
  readonly keyPrefix: string;
  readonly allowBookmarks: boolean;
  readonly deadline: number | undefined;
  /** When the next periodic bookmark is due; maintained by the cacher. */
  nextBookmarkAt = Number.POSITIVE_INFINITY;

  private readonly filter: ((object: T) => boolean) | undefined;
  private readonly bufferLimit: number;
  private readonly startRevision: number;
  private initial: Array<CacheWatchEvent<T>>;
  private initialIndex = 0;
  private replay: Array<CacheEntry<T>>;
  private replayIndex = 0;
  private readonly queue = new PullQueue<CacheWatchEvent<T>>();
  private direct: DirectConsumer<T> | undefined;
  /** Revision of the newest change or bookmark queued. */
  private cursor: number;
  private failure: StorageError | undefined;
  private finished = false;
  private endedOnce = false;
  private resolveEnded!: (error: StorageError | undefined) => void;

  constructor(private readonly init: CacheWatcherInit<T>) {
    this.keyPrefix = init.keyPrefix;
    this.allowBookmarks = init.allowBookmarks;
    this.deadline = init.deadline;
    this.filter = init.filter;
    this.bufferLimit = Math.max(1, init.bufferLimit);
    this.startRevision = init.startRevision;
    this.initial = init.initial;
    this.replay = init.replay;
    const lastReplayed = init.replay.length > 0 ? init.replay[init.replay.length - 1].revision : 0;
    this.cursor = Math.max(init.startRevision, lastReplayed);
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  get isOver(): boolean {
    return this.finished || this.failure !== undefined;
  }

  /** A change under this watcher's key prefix, from the cacher's dispatch. */
  pushEntry(entry: CacheEntry<T>): void {
    if (this.isOver || entry.revision <= this.cursor) return;
    const event = filteredEvent(entry, this.filter);
    if (event === undefined) return;
    if (this.queue.length >= this.bufferLimit) {
      this.fail(
        new StorageError('WatchOverflow', `${this.init.describe} fell ${this.bufferLimit} events behind at revision ${this.cursor}; watch again from there`),
      );
      return;
    }
    this.cursor = entry.revision;
    this.enqueue(event);
  }

  /**
   * A bookmark at `revision`, which the cache has reached. Ignored for watchers that did not ask for
   * bookmarks or that start after it. A bookmark still queued is moved forward instead of queueing a
   * second one, so bookmarks never pile up behind a slow consumer.
   */
  pushBookmark(revision: number): void {
    if (this.isOver || !this.allowBookmarks || revision < this.cursor) return;
    this.cursor = revision;
    const last = this.queue.last();
    if (last?.type === 'BOOKMARK' && !last.initialEventsEnd) {
      this.queue.replaceLast({ type: 'BOOKMARK', revision });
      return;
    }
    if (this.queue.length >= this.bufferLimit) return;
    this.enqueue({ type: 'BOOKMARK', revision });
  }

  /** Ends the watch with `error`, thrown after the events already queued. */
  fail(error: StorageError): void {
    if (this.isOver) return;
    this.failure = error;
    this.direct = undefined;
    this.end(error);
    this.queue.wakeUp();
  }

  deliverDirectly(consumer: DirectConsumer<T>): void {
    if (this.isOver) return;
    // What already waits (initial state, replay, backlog) goes first, in one synchronous run while the
    // consumer takes it: a watch's initial state then costs no promise per event either.
    for (let event = this.nextReady(); event !== undefined; event = this.nextReady()) {
      if (!consumer(event)) return;
    }
    this.direct = consumer;
  }

  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.direct = undefined;
    this.initial = [];
    this.replay = [];
    this.queue.clear();
    this.end(undefined);
    this.queue.wakeUp();
  }

  [Symbol.asyncIterator](): AsyncIterator<CacheWatchEvent<T>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  /** Pulls the next event; concurrent calls are answered one after the other. */
  readonly next: () => Promise<IteratorResult<CacheWatchEvent<T>>> = serialPulls(() => this.pull());

  private async pull(): Promise<IteratorResult<CacheWatchEvent<T>>> {
    for (;;) {
      if (this.finished) return { done: true, value: undefined };
      const ready = this.nextReady();
      if (ready !== undefined) return this.handOut(ready);
      if (this.failure !== undefined) {
        this.finished = true;
        throw this.failure;
      }
      await this.queue.waitForMore();
    }
  }

  /** The next event that waits: initial, then replayed (through the filter), then queued. */
  private nextReady(): CacheWatchEvent<T> | undefined {
    if (this.initialIndex < this.initial.length) {
      const event = this.initial[this.initialIndex++];
      if (this.initialIndex === this.initial.length) this.initial = [];
      return event;
    }
    while (this.replayIndex < this.replay.length) {
      const event = filteredEvent(this.replay[this.replayIndex++], this.filter);
      if (this.replayIndex === this.replay.length) this.replay = [];
      if (event !== undefined) return event;
    }
    return this.queue.shift();
  }

  /** The consumer is busy with `event` until it arms direct delivery again: later events queue behind it. */
  private handOut(event: CacheWatchEvent<T>): IteratorResult<CacheWatchEvent<T>> {
    this.direct = undefined;
    return { done: false, value: event };
  }

  private enqueue(event: CacheWatchEvent<T>): void {
    const direct = this.direct;
    if (direct !== undefined && this.queue.length === 0 && this.initial.length === 0 && this.replay.length === 0) {
      if (!direct(event)) this.direct = undefined;
      return;
    }
    this.queue.push(event);
  }

  private end(error: StorageError | undefined): void {
    if (this.endedOnce) return;
    this.endedOnce = true;
    this.init.onEnd(this);
    this.resolveEnded(error);
  }
}
