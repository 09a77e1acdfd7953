import type { Pod } from '@svc/api';
import { podInfoOf, podKey, podPriority, type PodInfo } from '../cache/pod-info';
import type { ClusterEvent } from './cluster-event';
import { KeyedHeap } from './keyed-heap';
import { PodNominator } from './pod-nominator';

/** A pending pod in the queue (Kubernetes' QueuedPodInfo). */
export interface QueuedPodInfo {
  info: PodInfo;
  /** When it entered the queue or was last tried: orders pods of one priority, and starts its backoff. */
  timestamp: number;
  /** Scheduling attempts so far. */
  attempts: number;
  /** When it was first tried. */
  initialAttemptTimestamp?: number;
  /** The plugins that rejected it last time; empty when the failure was not a plugin's (no nodes at all). */
  unschedulablePlugins: Set<string>;
}

export interface SchedulingQueueOptions {
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A pod unschedulable this long is tried again though nothing moved it. */
  maxInUnschedulableMs: number;
  /** Whether a failure in `plugin` may be cured by `event`. */
  cures: (plugin: string, event: ClusterEvent) => boolean;
  now?: () => number;
}

/** The fields whose change makes an unschedulable pod worth trying again (Kubernetes' isPodUpdated, less status). */
function specChanged(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod) => JSON.stringify({ spec: p.spec, labels: p.metadata?.labels, annotations: p.metadata?.annotations });
  return strip(oldPod) !== strip(newPod);
}

/**
 * Kubernetes' scheduling queue: pods ready to try (active, by priority then age), pods waiting out
 * their backoff (1 s doubling to 10 s by default), and pods that fit nowhere, which wait for a
 * cluster event that could change that (a node added or changed, a pod gone) or at most
 * `maxInUnschedulableMs`.
 */
export class SchedulingQueue {
  private readonly active = new KeyedHeap<QueuedPodInfo>(
    (q) => q.info.key,
    (a, b) => {
      const pa = podPriority(a.info.pod);
      const pb = podPriority(b.info.pod);
      return pa !== pb ? pa > pb : a.timestamp < b.timestamp;
    },
  );
  private readonly backoff = new KeyedHeap<QueuedPodInfo>(
    (q) => q.info.key,
    (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b),
  );
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** The queued pods nominated to nodes by preemption. */
  readonly nominator = new PodNominator();
  /** Pods popped and not yet done with (scheduling or binding). */
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private waiters: Array<(q: QueuedPodInfo | undefined) => void> = [];
  private closed = false;
  private readonly now: () => number;
  /** Incremented at each pop. */
  schedulingCycle = 0;
  /** The cycle of the last move: a pod failing in a cycle before it may have missed what the move was about. */
  private moveRequestCycle = -1;

  constructor(private readonly options: SchedulingQueueOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A new pending pod. */
  add(pod: Pod): void {
    const key = podKey(pod);
    if (this.inFlight.has(key)) {
      this.inFlight.get(key)!.info = podInfoOf(pod);
      this.nominator.update(undefined, pod, this.inFlight.get(key)!.info);
      return;
    }
    if (this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key)) {
      this.update(pod, pod);
      return;
    }
    const info = podInfoOf(pod);
    this.nominator.update(undefined, pod, info);
    this.pushActive({ info, timestamp: this.now(), attempts: 0, unschedulablePlugins: new Set() });
  }

  /** A pending pod changed: it keeps its place, and an unschedulable one whose spec changed is tried again. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = podKey(newPod);
    const info = podInfoOf(newPod);
    if (this.has(key)) this.nominator.update(oldPod, newPod, info);
    const flying = this.inFlight.get(key);
    if (flying) {
      flying.info = info;
      return;
    }
    const queued = this.active.get(key) ?? this.backoff.get(key);
    if (queued) {
      queued.info = info;
      if (this.active.has(key)) this.active.push(queued);
      else this.backoff.push(queued);
      return;
    }
    const waiting = this.unschedulable.get(key);
    if (waiting) {
      waiting.info = info;
      if (specChanged(oldPod, newPod)) {
        this.unschedulable.delete(key);
        if (this.isBackingOff(waiting)) this.backoff.push(waiting);
        else this.pushActive(waiting);
      }
      return;
    }
    this.add(newPod);
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    this.nominator.delete(key);
    this.active.delete(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
    this.inFlight.delete(key);
  }

  /** The next pod to try; waits while none is active. Undefined once closed or `signal` aborts. */
  pop(signal?: AbortSignal): Promise<QueuedPodInfo | undefined> {
    const next = this.takeActive();
    if (next || this.closed || signal?.aborted) return Promise.resolve(next);
    return new Promise((resolve) => {
      const waiter = (q: QueuedPodInfo | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(q);
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** The pod was bound (or gone): it leaves the queue's books. */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * A pod that fit nowhere: it waits for a cluster event, unless one came since it was popped (then
   * it only backs off), or it was deleted or changed meanwhile.
   */
  addUnschedulable(q: QueuedPodInfo, cycle: number): void {
    const key = q.info.key;
    if (!this.inFlight.has(key)) return;
    this.inFlight.delete(key);
    q.timestamp = this.now();
    if (this.moveRequestCycle >= cycle) this.backoff.push(q);
    else this.unschedulable.set(key, q);
  }

  /** A pod whose attempt failed for another reason (an error, a failed binding): it backs off. */
  addBackoff(q: QueuedPodInfo): void {
    const key = q.info.key;
    if (!this.inFlight.has(key)) return;
    this.inFlight.delete(key);
    q.timestamp = this.now();
    this.backoff.push(q);
  }

  /** Moves the unschedulable pods this event may help to active (or to backoff while they back off). */
  moveOnEvent(event: ClusterEvent): number {
    this.moveRequestCycle = this.schedulingCycle;
    let moved = 0;
    for (const [key, q] of this.unschedulable) {
      const plugins = q.unschedulablePlugins;
      if (plugins.size > 0 && ![...plugins].some((p) => this.options.cures(p, event))) continue;
      this.unschedulable.delete(key);
      if (this.isBackingOff(q)) this.backoff.push(q);
      else this.pushActive(q);
      moved++;
    }
    return moved;
  }

  /** Pods whose backoff is over go to active (Kubernetes runs this every second). */
  flushBackoff(): void {
    const now = this.now();
    for (let head = this.backoff.peek(); head && this.backoffExpiry(head) <= now; head = this.backoff.peek()) {
      this.backoff.pop();
      this.pushActive(head);
    }
  }

  /** Pods unschedulable longer than the limit are tried again. */
  flushUnschedulableLeftover(): void {
    const now = this.now();
    for (const [key, q] of this.unschedulable) {
      if (now - q.timestamp < this.options.maxInUnschedulableMs) continue;
      this.unschedulable.delete(key);
      if (this.isBackingOff(q)) this.backoff.push(q);
      else this.pushActive(q);
    }
  }

  close(): void {
    this.closed = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  /** Counts per queue, for metrics. */
  pending(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size };
  }

  /** Whether the pod is queued anywhere (or being tried). */
  has(key: string): boolean {
    return this.active.has(key) || this.backoff.has(key) || this.unschedulable.has(key) || this.inFlight.has(key);
  }

  backoffDurationMs(attempts: number): number {
    let duration = this.options.initialBackoffMs;
    for (let i = 1; i < attempts; i++) {
      if (duration > this.options.maxBackoffMs - duration) return this.options.maxBackoffMs;
      duration += duration;
    }
    return Math.min(duration, this.options.maxBackoffMs);
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDurationMs(q.attempts);
  }

  private isBackingOff(q: QueuedPodInfo): boolean {
    return q.attempts > 0 && this.backoffExpiry(q) > this.now();
  }

  private pushActive(q: QueuedPodInfo): void {
    const waiter = this.waiters.shift();
    if (waiter && this.active.size === 0) {
      this.startAttempt(q);
      waiter(q);
      return;
    }
    this.active.push(q);
    if (waiter) waiter(this.takeActive());
  }

  private takeActive(): QueuedPodInfo | undefined {
    const q = this.active.pop();
    if (q) this.startAttempt(q);
    return q;
  }

  private startAttempt(q: QueuedPodInfo): void {
    this.schedulingCycle++;
    q.attempts++;
    q.initialAttemptTimestamp ??= this.now();
    this.inFlight.set(q.info.key, q);
  }
}
