import type { Delta } from './delta';
import type { ResourceEventHandler } from './event-handler';
import type { InformerLogger } from './logger';

/** Synchronous handlers get the event loop back this often, so I/O is never starved by a backlog. */
const YIELD_EVERY = 256;

/**
 * One handler's queue (client-go's processorListener): the informer appends, a drain loop delivers
 * one notification at a time. The queue is unbounded on purpose: a slow handler only grows its own
 * backlog, it never holds up the reflector or the other handlers.
 */
export class ProcessorListener<T> {
  private buffer: (Delta<T> | undefined)[] = [];
  private head = 0;
  private draining = false;
  private removed = false;
  private enqueued = 0;
  private delivered = 0;
  private syncTarget: number | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handler: ResourceEventHandler<T>,
    private readonly logger: InformerLogger,
    private readonly name: string,
  ) {}

  add(delta: Delta<T>): void {
    if (this.removed) return;
    this.buffer.push(delta);
    this.enqueued++;
    if (!this.draining) {
      this.draining = true;
      // Never inside the caller's stack: the reflector must not run handler code.
      setImmediate(() => void this.drain());
    }
  }

  /** Everything queued so far belongs to the initial state; synced once it has been handled. */
  markSyncPoint(): void {
    this.syncTarget ??= this.enqueued;
  }

  hasSynced(): boolean {
    return this.syncTarget !== undefined && this.delivered >= this.syncTarget;
  }

  pending(): number {
    return this.buffer.length - this.head;
  }

  /** Resolves when the queue is empty and no handler call is running. */
  whenIdle(): Promise<void> {
    if (!this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  remove(): void {
    this.removed = true;
    this.buffer = [];
    this.head = 0;
  }

  private async drain(): Promise<void> {
    let syncRun = 0;
    while (!this.removed && this.head < this.buffer.length) {
      const delta = this.buffer[this.head] as Delta<T>;
      this.buffer[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer = this.buffer.slice(this.head);
        this.head = 0;
      }
      try {
        const result = this.deliver(delta);
        if (result !== undefined && typeof result.then === 'function') {
          syncRun = 0;
          await result;
        } else if (++syncRun >= YIELD_EVERY) {
          syncRun = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (error) {
        this.logger.error(`${this.name}: event handler failed on ${delta.type}`, error);
      }
      this.delivered++;
    }
    this.draining = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private deliver(delta: Delta<T>): void | Promise<void> {
    const h = this.handler;
    switch (delta.type) {
      case 'added':
        return h.onAdd?.(delta.object, { isInInitialList: delta.isInInitialList });
      case 'updated':
        return h.onUpdate?.(delta.oldObject, delta.object);
      case 'sync':
        return h.onUpdate?.(delta.object, delta.object);
      case 'deleted':
        return h.onDelete?.(delta.object, { finalStateUnknown: delta.finalStateUnknown });
    }
  }
}
