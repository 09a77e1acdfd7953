import type { ServerResponse } from 'node:http';

const MIB = 1024 * 1024;
const KIB = 1024;
// The free list is searched whole on every allocation.
const MAX_FREE_BUFFERS = 64;

/**
 * Reusable memory for large response bodies (a list of hundreds or thousands of objects). A fresh
 * buffer of that size costs a page fault per 4 KiB on first write and adds to the external memory that
 * drives full garbage collections; a list of 10,000 ConfigMaps (13 MB) spent more time on those than
 * on copying its items. A buffer goes back to the pool only once its response has finished, that is
 * once the socket has taken every byte; a response cut short leaves its buffer to the collector.
 */
export class LargeBodyPool {
  private readonly free: ArrayBuffer[] = [];
  private freeBytes = 0;

  /**
   * @param minBytes bodies below this size are allocated the ordinary way.
   * @param maxPooledBytes at most this much memory waits in the pool; larger buffers are never kept.
   */
  constructor(
    private readonly minBytes = 128 * KIB,
    private readonly maxPooledBytes = 64 * MIB,
  ) {}

  /** A buffer of exactly `size` bytes, uninitialized. */
  readonly allocate = (size: number): Buffer => {
    if (size < this.minBytes) return Buffer.allocUnsafe(size);
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = this.free[i].byteLength;
      if (length >= size && (best < 0 || length < this.free[best].byteLength)) best = i;
    }
    if (best >= 0) {
      const [memory] = this.free.splice(best, 1);
      this.freeBytes -= memory.byteLength;
      return Buffer.from(memory, 0, size);
    }
    // Rounded up, so that a list grown by a few objects still fits the same memory next time.
    const unit = size < MIB ? 64 * KIB : MIB;
    return Buffer.from(new ArrayBuffer(Math.ceil((size * 1.125) / unit) * unit), 0, size);
  };

  /** Gives `body`'s memory back once `res` has finished writing it. */
  releaseAfter(res: ServerResponse, body: Buffer): void {
    if (body.byteLength < this.minBytes) return;
    const memory = body.buffer;
    if (!(memory instanceof ArrayBuffer) || memory.byteLength > this.maxPooledBytes) return;
    res.once('finish', () => {
      if (this.freeBytes + memory.byteLength > this.maxPooledBytes || this.free.length >= MAX_FREE_BUFFERS) return;
      this.free.push(memory);
      this.freeBytes += memory.byteLength;
    });
  }
}
