/**
 * The buffer of a watch: events pushed by a producer that never waits, pulled by one consumer that
 * waits when it is empty. Both the storage watch channel and the API server's cache watchers use it.
 * Dequeuing moves an index and compacts now and then, so a long queue is never shifted element by
 * element.
 */
export class PullQueue<E> {
  private items: E[] = [];
  private head = 0;
  private wake: (() => void) | undefined;

  /** Events queued and not yet taken. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** The newest queued event, if any is still waiting. */
  last(): E | undefined {
    return this.length > 0 ? this.items[this.items.length - 1] : undefined;
  }

  /** Replaces the newest queued event; only valid while one is waiting. */
  replaceLast(item: E): void {
    if (this.length === 0) throw new Error('no queued event to replace');
    this.items[this.items.length - 1] = item;
  }

  push(item: E): void {
    this.items.push(item);
    this.wakeUp();
  }

  /** The oldest queued event, or undefined when none waits. */
  shift(): E | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Drops every queued event. */
  clear(): void {
    this.items = [];
    this.head = 0;
  }

  /** Resolves at the next push or `wakeUp()`; one consumer waits at a time. */
  waitForMore(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** Releases the waiting consumer, for changes other than a push (an error, the end). */
  wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Serialises the `next()` calls of an async iterator: each pull starts once the previous one has
 * settled, so concurrent callers get events one after the other, never the same one twice.
 */
export function serialPulls<R>(pull: () => Promise<R>): () => Promise<R> {
  let pulling: Promise<unknown> = Promise.resolve();
  return () => {
    const result = pulling.then(pull);
    pulling = result.catch(() => undefined);
    return result;
  };
}
