import type { ChangeEvent, StoredObject, StorageWatchEvent, Watcher } from './storage';
import { StorageError } from './storage-error';
import { PullQueue, serialPulls } from './pull-queue';

export const DEFAULT_WATCH_BUFFER_LIMIT = 10_000;

export interface WatchChannelOptions {
  /** Revision after which changes are delivered; live changes at or below it are dropped. */
  startRevision: number;
  bufferLimit: number;
  progressIntervalMs?: number;
  /** A revision up to which every change under the prefix has been queued; asked only while live. */
  progressRevision: () => number;
  /** Called once when the watch ends for any reason, so the backend stops feeding it. */
  onEnd: () => void;
  /**
   * For a backend whose feed may lag its store: called on `requestProgress()` with what emits the
   * PROGRESS event, to be called once the feed has caught up with the store's current revision.
   * Unset: emitted at once.
   */
  requestProgress?: (emit: () => void) => void;
}

/**
 * The consumer side of a watch, shared by the backends: initial events, a pull-driven catch-up phase,
 * then live events pushed by the backend's feed into a bounded queue.
 *
 * The catch-up phase reads history only when the consumer asks for more, so a watch from an old
 * revision never holds more than one page of history in memory. The live queue is bounded; a consumer
 * that falls `bufferLimit` events behind is cut off with WatchOverflow after the queued events.
 */
export class WatchChannel<T extends StoredObject> implements Watcher<T> {
  /** Revision of the last change queued. */
  cursor: number;
  readonly ended: Promise<StorageError | undefined>;

  private initial: StorageWatchEvent<T>[] = [];
  private initialIndex = 0;
  private readonly queue = new PullQueue<StorageWatchEvent<T>>();
  private catchUpStep: (() => Promise<void> | void) | undefined;
  private failure: StorageError | undefined;
  private finished = false;
  private activity = false;
  private progressWanted = false;
  private timer: NodeJS.Timeout | undefined;
  private resolveEnded!: (error: StorageError | undefined) => void;

  constructor(private readonly options: WatchChannelOptions) {
    this.cursor = options.startRevision;
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    if (options.progressIntervalMs !== undefined && options.progressIntervalMs > 0) {
      this.timer = setInterval(() => this.onProgressTick(), options.progressIntervalMs);
      this.timer.unref();
    }
  }

  /** True once catch-up is over and the backend feeds this channel directly. */
  get live(): boolean {
    return this.catchUpStep === undefined && !this.isOver;
  }

  get isOver(): boolean {
    return this.finished || this.failure !== undefined;
  }

  /** Synthetic ADDED events for the state at `revision`, delivered before anything else. */
  setInitial(objects: Array<{ key: string; object: T; revision: number }>, revision: number): void {
    this.initial = objects.map((item) => ({ type: 'ADDED', key: item.key, object: item.object, revision: item.revision }));
    this.initial.push({ type: 'PROGRESS', revision, initialEventsEnd: true });
  }

  /**
   * Enters catch-up: while the consumer waits on an empty queue, `step` is called to queue the next
   * page of history (with `pushHistory`) and to call `goLive()` once history is exhausted.
   */
  setCatchUp(step: () => Promise<void> | void): void {
    this.catchUpStep = step;
  }

  goLive(): void {
    this.catchUpStep = undefined;
    if (this.progressWanted) this.emitProgress();
  }

  /** A change read from history during catch-up; not bounded because it is read on demand. */
  pushHistory(event: ChangeEvent<T>): void {
    if (this.isOver || event.revision <= this.cursor) return;
    this.cursor = event.revision;
    this.enqueue(event);
  }

  /** A live change from the backend's feed. */
  push(event: ChangeEvent<T>): void {
    if (this.isOver || event.revision <= this.cursor) return;
    if (this.queue.length >= this.options.bufferLimit) {
      this.fail(
        new StorageError('WatchOverflow', `watch consumer fell ${this.options.bufferLimit} events behind at revision ${this.cursor}; watch again from there`),
      );
      return;
    }
    this.cursor = event.revision;
    this.enqueue(event);
  }

  /** Ends the watch with an error the consumer sees after the events already queued. */
  fail(error: StorageError): void {
    if (this.isOver) return;
    this.failure = error;
    this.finish(error);
    this.queue.wakeUp();
  }

  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.queue.clear();
    this.initial = [];
    this.initialIndex = 0;
    if (this.failure === undefined) this.finish(undefined);
    this.queue.wakeUp();
  }

  requestProgress(): void {
    const emit = (): void => {
      if (this.isOver) return;
      if (this.live) this.emitProgress();
      else this.progressWanted = true;
    };
    if (this.options.requestProgress === undefined) emit();
    else this.options.requestProgress(emit);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent<T>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  readonly next: () => Promise<IteratorResult<StorageWatchEvent<T>>> = serialPulls(() => this.pull());

  private async pull(): Promise<IteratorResult<StorageWatchEvent<T>>> {
    for (;;) {
      if (this.finished) return { done: true, value: undefined };
      if (this.initialIndex < this.initial.length) {
        const event = this.initial[this.initialIndex++];
        if (this.initialIndex === this.initial.length) this.initial = [];
        return { done: false, value: event };
      }
      const queued = this.queue.shift();
      if (queued !== undefined) return { done: false, value: queued };
      if (this.failure !== undefined) {
        this.finished = true;
        throw this.failure;
      }
      if (this.catchUpStep !== undefined) {
        try {
          await this.catchUpStep();
        } catch (error) {
          this.fail(error instanceof StorageError ? error : new StorageError('Unavailable', `watch failed: ${String(error)}`));
        }
        continue;
      }
      await this.queue.waitForMore();
    }
  }

  private enqueue(event: StorageWatchEvent<T>, isChange = true): void {
    if (isChange) this.activity = true;
    this.queue.push(event);
  }

  private emitProgress(): void {
    this.progressWanted = false;
    this.enqueue({ type: 'PROGRESS', revision: Math.max(this.cursor, this.options.progressRevision()) }, false);
  }

  private onProgressTick(): void {
    const idle = !this.activity && this.queue.length === 0;
    this.activity = false;
    if (idle && this.live) this.emitProgress();
  }

  private finish(error: StorageError | undefined): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.options.onEnd();
    this.resolveEnded(error);
  }
}
