import type { Registry } from 'prom-client';
import { QueueClock, realQueueClock } from './clock';
import { Fifo } from './fifo';
import { QueueMetrics, createQueueMetrics } from './metrics';

/** What {@link WorkQueue.get} resolves to: a key to process, or the news that the queue shut down. */
export type WorkQueueGetResult<K> = { readonly key: K; readonly shutdown: false } | { readonly shutdown: true };

/** Maps a key to the identity the queue de-duplicates on. */
export type WorkQueueKeyFn<K> = (key: K) => string;

export interface WorkQueueOptions<K> {
  /** Labels the queue's metrics; a queue without a name records none. */
  name?: string;
  /** Where the metrics are registered; none by default, so nothing is recorded. */
  registry?: Registry;
  clock?: QueueClock;
  /**
   * Identity of a key. Without it keys are compared as Map keys (SameValueZero): strings by value,
   * objects by reference, so object keys need one.
   */
  keyFn?: WorkQueueKeyFn<K>;
}

/** The contract of client-go's `workqueue.Interface`, in promise style. */
export interface WorkQueueInterface<K> extends AsyncIterable<K> {
  add(key: K): void;
  get(): Promise<WorkQueueGetResult<K>>;
  done(key: K): void;
  len(): number;
  shutDown(): void;
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

const SHUTDOWN: WorkQueueGetResult<never> = Object.freeze({ shutdown: true as const });

/**
 * A work queue of keys for controllers, as client-go's `workqueue.Type` behaves:
 * - a key waiting in the queue is there once: adding it again is a no-op (its first add keeps its
 *   place);
 * - a key is handed to one worker at a time: added while processed, it is marked dirty and queued
 *   again when the worker calls {@link done};
 * - keys are handed out in the order they became waiting.
 */
export class WorkQueue<K = string> implements WorkQueueInterface<K> {
  protected readonly clock: QueueClock;
  protected readonly metrics: QueueMetrics;
  protected readonly identify: (key: K) => unknown;

  /** Identities in hand-out order; each is in `dirty` and not in `processing`. */
  private readonly waiting = new Fifo<unknown>();
  /** Keys that need processing, whether waiting or re-added while processed. */
  private readonly dirty = new Map<unknown, K>();
  private readonly processing = new Map<unknown, K>();
  /** Pending `get` calls; only ever non-empty while `waiting` is empty. */
  private readonly getters = new Fifo<(result: WorkQueueGetResult<K>) => void>();
  private drainers: Array<() => void> = [];
  private isShuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.clock = options.clock ?? realQueueClock;
    this.identify = options.keyFn ?? identity;
    this.metrics = createQueueMetrics(options.name, options.registry, this.clock);
  }

  /** Marks `key` as needing processing; ignored once the queue is shutting down. */
  add(key: K): void {
    if (this.isShuttingDown) return;
    const id = this.identify(key);
    if (this.dirty.has(id)) return;
    this.metrics.add(id);
    this.dirty.set(id, key);
    if (this.processing.has(id)) return;
    this.waiting.push(id);
    this.handOut();
  }

  /**
   * The next key to process, once there is one. The caller owns the key until it calls
   * {@link done}. After shut down, keys still waiting are handed out first (as client-go does);
   * then every call resolves to `{ shutdown: true }`.
   */
  get(): Promise<WorkQueueGetResult<K>> {
    if (this.waiting.length > 0) return Promise.resolve(this.take());
    if (this.isShuttingDown) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * Ends the processing of `key`; if it was added meanwhile it waits again. A key that is not being
   * processed is ignored (client-go would queue it twice).
   */
  done(key: K): void {
    const id = this.identify(key);
    if (!this.processing.has(id)) return;
    this.metrics.done(id);
    this.processing.delete(id);
    if (this.dirty.has(id)) {
      this.waiting.push(id);
      this.handOut();
    }
    if (this.processing.size === 0) this.settleDrainers();
  }

  /** Number of keys waiting to be handed out (not those being processed or delayed). */
  len(): number {
    return this.waiting.length;
  }

  /** Stops taking keys and wakes every waiting `get` with `{ shutdown: true }`. */
  shutDown(): void {
    this.beginShutdown();
    // Also ends a shutDownWithDrain in progress, as client-go's ShutDown does.
    this.settleDrainers();
  }

  /**
   * Stops taking keys, wakes idle getters, and resolves once no key is being processed. Workers must
   * call `done` for every key they hold, or this never resolves; a later {@link shutDown} ends the
   * wait at once.
   */
  shutDownWithDrain(): Promise<void> {
    this.beginShutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainers.push(resolve));
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  /**
   * Keys until the queue shuts down; call {@link done} for each, as with {@link get}:
   * `for await (const key of queue) { try { ... } finally { queue.done(key); } }`.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<K, void, undefined> {
    for (;;) {
      const next = await this.get();
      if (next.shutdown) return;
      yield next.key;
    }
  }

  private beginShutdown(): void {
    if (this.isShuttingDown) return;
    this.isShuttingDown = true;
    this.metrics.close();
    while (this.getters.length > 0) this.getters.shift()(SHUTDOWN);
  }

  /** Hands a waiting key to the oldest pending `get`, marking it processed right away. */
  private handOut(): void {
    while (this.getters.length > 0 && this.waiting.length > 0) {
      this.getters.shift()(this.take());
    }
  }

  private take(): WorkQueueGetResult<K> {
    const id = this.waiting.shift();
    const key = this.dirty.get(id) as K;
    this.dirty.delete(id);
    this.processing.set(id, key);
    this.metrics.get(id);
    return { key, shutdown: false };
  }

  private settleDrainers(): void {
    if (this.drainers.length === 0) return;
    const drainers = this.drainers;
    this.drainers = [];
    for (const resolve of drainers) resolve();
  }
}

function identity(key: unknown): unknown {
  return key;
}
