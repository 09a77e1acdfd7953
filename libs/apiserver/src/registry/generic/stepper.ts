import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one write may hold the event loop before it lets other requests run. */
export const LOOP_SLICE_MS = 50;

/** One named step of a write: it reads and changes the write's state, and may throw to refuse it. */
export interface WriteStep<S> {
  readonly name: string;
  run(state: S): void | Promise<void>;
}

/** A step by its name and what it does. */
export function writeStep<S>(name: string, run: (state: S) => void | Promise<void>): WriteStep<S> {
  return { name, run };
}

/**
 * Runs a write's steps in order, and lets other requests run once the write has held the event loop
 * for a slice: before a step (what came before it, a store read or a body decode, may have spent the
 * slice) and after the last. Each step is linear in the body, but a body of 150,000 keys costs about
 * 0.1-0.3 s per step and a dozen steps in a row held every other request (and `/readyz`) for seconds;
 * this way no request waits behind more than one step of another. A small write never spends a slice
 * and never yields. A failure may be turned into the answer it deserves by `recover` (see
 * recoverTypeError). The stepper is the one place a write yields: its work is steps, not yields
 * scattered between them.
 */
export class Stepper {
  private start = performance.now();

  constructor(private readonly recover?: (error: unknown) => unknown) {}

  async run<S>(steps: readonly WriteStep<S>[], state: S): Promise<void> {
    try {
      for (const step of steps) {
        if (this.spent()) await this.pause();
        const pending = step.run(state);
        if (pending !== undefined) await pending;
      }
      if (this.spent()) await this.pause();
    } catch (error) {
      throw this.recover === undefined ? error : this.recover(error);
    }
  }

  private spent(): boolean {
    return performance.now() - this.start >= LOOP_SLICE_MS;
  }

  private async pause(): Promise<void> {
    await nextTurn();
    this.start = performance.now();
  }
}
