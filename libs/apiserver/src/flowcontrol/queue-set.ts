import { Dealer } from './shuffle-sharding';

/** Time as the queues see it; tests pass one of their own. */
export interface FairQueueClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): { cancel(): void };
}

export const REAL_CLOCK: FairQueueClock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** How a level's queues are shaped: none for a level that rejects what does not fit at once. */
export interface QueuingShape {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** Why a request was turned away, as Kubernetes' `reason` label of rejected_requests_total. */
export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export type Admission = { admitted: true; waitedMs: number; release(): void } | { admitted: false; reason: RejectReason; waitedMs: number };

export interface SeatRequest {
  /** The flow's hash (schema and distinguisher): it chooses the hand of queues. */
  hash: number;
  /** Seats the request holds while it runs, at least 1. */
  width: number;
  /** How long it may wait in a queue, in ms. */
  waitLimitMs: number;
  /** Aborted when the client goes away while it waits. */
  signal?: AbortSignal;
  /** Whatever the caller keeps with the request (its flow schema, for the dumps and metrics). */
  tag?: string;
}

interface Waiting {
  request: SeatRequest;
  queue: Queue;
  enqueuedAt: number;
  resolve(admission: Admission): void;
  timer: { cancel(): void };
  onAbort?: () => void;
}

interface Queue {
  index: number;
  waiting: Waiting[];
  executingRequests: number;
  seatsInUse: number;
  /** Seats this queue has been given, in virtual terms: the queue whose head would finish first goes next. */
  virtualFinish: number;
}

/** What a level reports of itself, for the debug dumps. */
export interface QueueSetState {
  concurrencyLimit: number;
  seatsInUse: number;
  executingRequests: number;
  waitingRequests: number;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
  queues: Array<{ index: number; waitingRequests: number; waitingSeats: number; executingRequests: number; seatsInUse: number; virtualFinish: number }>;
}

/**
 * The seats of one priority level and its fair queues (Kubernetes' queueset): a request that fits
 * the level's free seats while nothing waits runs at once; otherwise it joins the shortest queue of
 * its flow's hand (shuffle sharding), or is rejected when that queue is full. When seats free up, the
 * queue whose head would finish first in virtual time is served, each queue charged the seats its
 * requests take, so flows share the seats evenly whatever rate each sends at, and a wide request
 * (a big LIST) counts for its width.
 */
export class QueueSet {
  private queues: Queue[] = [];
  private dealer: Dealer | undefined;
  private seatsInUse = 0;
  private executingRequests = 0;
  private waitingRequests = 0;
  private counters = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };

  constructor(
    private concurrencyLimit: number,
    private shape: QueuingShape | undefined,
    private readonly clock: FairQueueClock = REAL_CLOCK,
  ) {
    this.reshape(concurrencyLimit, shape);
  }

  /**
   * A new limit or queue shape (the level's object changed, or the seats were divided anew). Waiting
   * requests stay in their queues while the queue count allows; those beyond it are rejected.
   */
  reshape(concurrencyLimit: number, shape: QueuingShape | undefined): void {
    this.concurrencyLimit = Math.max(0, concurrencyLimit);
    this.shape = shape;
    const count = shape?.queues ?? 0;
    this.dealer = shape ? new Dealer(shape.queues, Math.min(shape.handSize, shape.queues)) : undefined;
    const kept = this.queues.slice(0, count);
    for (const dropped of this.queues.slice(count))
      for (const w of [...dropped.waiting]) this.finishWaiting(w, { admitted: false, reason: 'concurrency-limit', waitedMs: 0 });
    const floor = this.minimumActiveFinish();
    while (kept.length < count) kept.push({ index: kept.length, waiting: [], executingRequests: 0, seatsInUse: 0, virtualFinish: floor });
    this.queues = kept;
    this.dispatch();
  }

  /** Waits for seats, or says why not. The admitted caller calls release() once the request is done. */
  acquire(request: SeatRequest): Promise<Admission> {
    const width = Math.max(1, Math.floor(request.width));
    const req = { ...request, width };
    if (this.waitingRequests === 0 && this.fits(width)) return Promise.resolve(this.start(req, undefined, 0));
    if (request.signal?.aborted) return Promise.resolve(this.reject('cancelled', 0));
    if (!this.shape || !this.dealer) return Promise.resolve(this.reject('concurrency-limit', 0));
    const queue = this.shortestOfHand(request.hash);
    if (queue.waiting.length >= this.shape.queueLengthLimit) return Promise.resolve(this.reject('queue-full', 0));
    return new Promise<Admission>((resolve) => {
      if (queue.waiting.length === 0 && queue.executingRequests === 0) queue.virtualFinish = Math.max(queue.virtualFinish, this.minimumActiveFinish());
      const waiting: Waiting = {
        request: req,
        queue,
        enqueuedAt: this.clock.now(),
        resolve,
        timer: this.clock.setTimeout(() => this.expire(waiting, 'time-out'), Math.max(0, request.waitLimitMs)),
      };
      if (request.signal) {
        waiting.onAbort = () => this.expire(waiting, 'cancelled');
        request.signal.addEventListener('abort', waiting.onAbort, { once: true });
      }
      queue.waiting.push(waiting);
      this.waitingRequests++;
      this.dispatch();
    });
  }

  state(): QueueSetState {
    return {
      concurrencyLimit: this.concurrencyLimit,
      seatsInUse: this.seatsInUse,
      executingRequests: this.executingRequests,
      waitingRequests: this.waitingRequests,
      ...this.counters,
      queues: this.queues.map((q) => ({
        index: q.index,
        waitingRequests: q.waiting.length,
        waitingSeats: q.waiting.reduce((sum, w) => sum + w.request.width, 0),
        executingRequests: q.executingRequests,
        seatsInUse: q.seatsInUse,
        virtualFinish: q.virtualFinish,
      })),
    };
  }

  /** Whether nothing runs or waits here. */
  get idle(): boolean {
    return this.executingRequests === 0 && this.waitingRequests === 0;
  }

  /** A request fits when its seats are free, or when nothing runs at all (a request wider than the level still runs, alone). */
  private fits(width: number): boolean {
    return this.seatsInUse + width <= this.concurrencyLimit || (this.executingRequests === 0 && this.concurrencyLimit > 0);
  }

  private shortestOfHand(hash: number): Queue {
    const hand = this.dealer!.deal(hash);
    let best = this.queues[hand[0]];
    let bestLength = Number.POSITIVE_INFINITY;
    for (const index of hand) {
      const q = this.queues[index];
      // Kubernetes measures a queue by the seats it waits for and holds.
      const length = q.waiting.reduce((sum, w) => sum + w.request.width, 0) + q.seatsInUse;
      if (length < bestLength) {
        best = q;
        bestLength = length;
      }
    }
    return best;
  }

  /** The virtual time of the busiest-served active queue floor: a queue waking up starts there, with no credit for its idle time. */
  private minimumActiveFinish(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const q of this.queues) if (q.waiting.length > 0 || q.executingRequests > 0) min = Math.min(min, q.virtualFinish);
    if (min !== Number.POSITIVE_INFINITY) return min;
    return this.queues.reduce((max, q) => Math.max(max, q.virtualFinish), 0);
  }

  private dispatch(): void {
    for (;;) {
      let next: Queue | undefined;
      for (const q of this.queues) {
        const head = q.waiting[0];
        if (head === undefined) continue;
        if (next === undefined || q.virtualFinish + head.request.width < next.virtualFinish + next.waiting[0].request.width) next = q;
      }
      if (next === undefined) return;
      const head = next.waiting[0];
      if (!this.fits(head.request.width)) return;
      next.waiting.shift();
      this.waitingRequests--;
      head.timer.cancel();
      if (head.onAbort) head.request.signal?.removeEventListener('abort', head.onAbort);
      head.resolve(this.start(head.request, next, this.clock.now() - head.enqueuedAt));
    }
  }

  private start(request: SeatRequest, queue: Queue | undefined, waitedMs: number): Admission {
    const width = request.width;
    this.seatsInUse += width;
    this.executingRequests++;
    this.counters.dispatched++;
    if (queue) {
      queue.seatsInUse += width;
      queue.executingRequests++;
      queue.virtualFinish += width;
    }
    let released = false;
    return {
      admitted: true,
      waitedMs,
      release: () => {
        if (released) return;
        released = true;
        this.seatsInUse -= width;
        this.executingRequests--;
        if (queue) {
          queue.seatsInUse -= width;
          queue.executingRequests--;
        }
        this.dispatch();
      },
    };
  }

  private reject(reason: RejectReason, waitedMs: number): Admission {
    if (reason === 'time-out') this.counters.timedOut++;
    else if (reason === 'cancelled') this.counters.cancelled++;
    else this.counters.rejected++;
    return { admitted: false, reason, waitedMs };
  }

  private expire(waiting: Waiting, reason: RejectReason): void {
    const i = waiting.queue.waiting.indexOf(waiting);
    if (i < 0) return;
    this.finishWaiting(waiting, this.reject(reason, this.clock.now() - waiting.enqueuedAt));
  }

  private finishWaiting(waiting: Waiting, admission: Admission): void {
    const i = waiting.queue.waiting.indexOf(waiting);
    if (i >= 0) {
      waiting.queue.waiting.splice(i, 1);
      this.waitingRequests--;
    }
    waiting.timer.cancel();
    if (waiting.onAbort) waiting.request.signal?.removeEventListener('abort', waiting.onAbort);
    waiting.resolve(admission);
    this.dispatch();
  }
}
