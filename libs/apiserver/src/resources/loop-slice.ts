import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one write may hold the event loop before it lets other requests run. */
export const LOOP_SLICE_MS = 50;

/**
 * The event-loop time a write has spent since it last let others run. Each step of a write is linear
 * in its body, but a body of 150,000 keys costs about 0.1-0.3 s per step and a dozen steps in a row
 * held every other request (and `/readyz`) for seconds. Between steps the write yields once its
 * slice is spent, so no request waits behind more than one step of another. A small write never
 * spends a slice and never yields.
 */
export class LoopSlice {
  private start = performance.now();

  async yieldIfSpent(): Promise<void> {
    if (performance.now() - this.start < LOOP_SLICE_MS) return;
    await nextTurn();
    this.start = performance.now();
  }
}
