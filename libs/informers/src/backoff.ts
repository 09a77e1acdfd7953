import { informerClock } from './informer-clock';
import type { QueueClock } from './workqueue';

export interface BackoffOptions {
  /** First delay, before jitter (default 1 s). */
  initialMs?: number;
  /** Largest delay, before jitter (default 30 s). */
  maxMs?: number;
  /** Growth per consecutive failure (default 2). */
  factor?: number;
  /** A failure this long after the previous one starts over at the first delay (default 2 min). */
  resetAfterMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialMs: 1_000,
  maxMs: 30_000,
  factor: 2,
  resetAfterMs: 120_000,
};

/**
 * Exponential backoff with "equal jitter": each delay is drawn from [d/2, d). When an API server
 * restarts, every reflector of every process fails in the same instant; without the random half
 * they would all retry (and relist) in lockstep, which is the relist storm seen in client-node.
 */
export class Backoff {
  private readonly options: Required<BackoffOptions>;
  private attempt = 0;
  private lastFailureAt: number | undefined;

  constructor(
    options: BackoffOptions = {},
    private readonly clock: QueueClock = informerClock,
    private readonly random: () => number = Math.random,
  ) {
    this.options = { ...DEFAULT_BACKOFF, ...options };
  }

  /** The delay to wait before retrying the failure that happened just now. */
  next(): number {
    const now = this.clock.now();
    if (this.lastFailureAt !== undefined && now - this.lastFailureAt >= this.options.resetAfterMs) this.attempt = 0;
    this.lastFailureAt = now;
    const { initialMs, maxMs, factor } = this.options;
    const base = Math.min(maxMs, initialMs * Math.pow(factor, this.attempt));
    if (base < maxMs) this.attempt++;
    return base / 2 + (this.random() * base) / 2;
  }

  /** Starts over at the first delay. */
  reset(): void {
    this.attempt = 0;
    this.lastFailureAt = undefined;
  }
}

/** A period drawn from [p, 2p): `--min-resync-period` semantics, so informers do not resync in step. */
export function jitteredPeriod(periodMs: number, random: () => number = Math.random): number {
  return periodMs * (1 + random());
}
