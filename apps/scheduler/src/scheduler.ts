import type { Pod, PodCondition } from '@svc/api';
import type { Client } from '@svc/client';
import { errorMessage, isConflict, isNotFound, metaTime } from '@svc/machinery';
import type { ControllerLogger } from '@svc/runtime';
import { podPriority } from './cache/pod-info';
import type { SchedulerCache } from './cache/scheduler-cache';
import type { EventSink } from './event-sink';
import type { NamespaceLabels } from './framework/affinity';
import { FitError, NoNodesAvailableError } from './framework/fit-error';
import type { Framework } from './framework/framework';
import { CycleState } from './framework/plugin';
import type { DefaultPreemption } from './preemption/default-preemption';
import { evictVictims } from './preemption/evict-victims';
import type { QueuedPodInfo, SchedulingQueue } from './queue/scheduling-queue';
import { InFlightLimit } from './in-flight-limit';
import type { SchedulerMetrics } from './scheduler-metrics';

/** How long the loop keeps the event loop before it lets informer events and binding answers in. */
const SLICE_MS = 20;
const BACKOFF_FLUSH_MS = 1_000;
const UNSCHEDULABLE_FLUSH_MS = 30_000;
/** How long a stop waits for bindings under way. */
const BINDING_DRAIN_MS = 5_000;
/** Binding requests in flight at once (Kubernetes' default parallelism); the rest wait, assumed on their nodes. */
const BINDING_PARALLELISM = 16;

export interface SchedulerDependencies {
  client: Client;
  cache: SchedulerCache;
  queue: SchedulingQueue;
  framework: Framework;
  events: EventSink;
  metrics?: SchedulerMetrics;
  /** The pod as the informer has it now, to skip pods deleted, bound or replaced since they were queued. */
  currentPod: (namespace: string, name: string) => Pod | undefined;
  namespaceLabels: NamespaceLabels;
  /** Kubernetes' DefaultPreemption PostFilter, run for a pod that fits nowhere; none: pods never preempt. */
  preemption?: DefaultPreemption;
  /** `--scheduler-name`, the profile label of the metrics. */
  schedulerName: string;
  logger: ControllerLogger;
}

/** Kubernetes' reasons on a PodScheduled=False condition. */
const REASON_UNSCHEDULABLE = 'Unschedulable';
const REASON_SCHEDULER_ERROR = 'SchedulerError';

/**
 * The scheduling loop (Kubernetes' scheduleOne): take the next pod from the queue, choose a node
 * synchronously against the cache, count the pod there (assume), and bind it in the background; a pod
 * that fits nowhere gets PodScheduled=False with the reasons, a FailedScheduling event, and waits in
 * the queue for a cluster change.
 */
export class Scheduler {
  /** Bindings and preemptions under way. */
  private readonly bindings = new Set<Promise<void>>();
  private readonly bindingSlots = new InFlightLimit(BINDING_PARALLELISM);
  /** Aborted when the loop stops: pre-bind waits (claims being provisioned) end with it. */
  private stopping = new AbortController();

  constructor(private readonly deps: SchedulerDependencies) {}

  /** Runs until `signal` aborts (leadership lost, or the process stops); bindings under way are given a few seconds. */
  async run(signal: AbortSignal): Promise<void> {
    const { queue, cache } = this.deps;
    this.stopping = new AbortController();
    const stop = () => this.stopping.abort();
    signal.addEventListener('abort', stop, { once: true });
    const timers = [
      setInterval(() => queue.flushBackoff(), BACKOFF_FLUSH_MS),
      setInterval(() => {
        queue.flushUnschedulableLeftover();
        cache.expireAssumed();
      }, UNSCHEDULABLE_FLUSH_MS),
    ];
    try {
      let sliceStart = performance.now();
      while (!signal.aborted) {
        const next = await queue.pop(signal);
        if (next === undefined) break;
        this.scheduleOne(next);
        if (performance.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
    } finally {
      for (const timer of timers) clearInterval(timer);
      signal.removeEventListener('abort', stop);
      this.stopping.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.bindings), new Promise((resolve) => (timer = setTimeout(resolve, BINDING_DRAIN_MS)))]);
      clearTimeout(timer);
    }
  }

  /** One attempt for one pod; the binding continues after it returns. */
  scheduleOne(queued: QueuedPodInfo): void {
    const { queue, cache, framework, metrics, schedulerName } = this.deps;
    const cycle = queue.schedulingCycle;
    const started = performance.now();
    const pod = queued.info.pod;
    const key = queued.info.key;
    const current = this.deps.currentPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    if (!current || current.metadata?.uid !== pod.metadata?.uid || current.spec.nodeName || current.metadata?.deletionTimestamp) {
      queue.done(key);
      return;
    }
    const state = new CycleState(queued.info, cache, this.deps.namespaceLabels, queue.nominator);
    let nodeName: string;
    try {
      nodeName = framework.schedule(state).node.name;
    } catch (error) {
      const unschedulable = error instanceof FitError || error instanceof NoNodesAvailableError;
      queued.unschedulablePlugins = error instanceof FitError ? new Set(error.plugins) : new Set();
      const result = unschedulable ? 'unschedulable' : 'error';
      metrics?.attempts.inc({ result, profile: schedulerName });
      metrics?.attemptDuration.observe({ result, profile: schedulerName }, (performance.now() - started) / 1000);
      if (!unschedulable) {
        this.deps.logger.error(`scheduling ${key} failed`, error);
        queue.addBackoff(queued);
        void this.recordFailure(current, REASON_SCHEDULER_ERROR, errorMessage(error));
        return;
      }
      if (error instanceof FitError && this.deps.preemption !== undefined) this.preempt(queued, cycle, state, current, error);
      else {
        queue.addUnschedulable(queued, cycle);
        void this.recordFailure(current, REASON_UNSCHEDULABLE, errorMessage(error));
      }
      return;
    }
    try {
      framework.reserve(state, nodeName);
    } catch (error) {
      metrics?.attempts.inc({ result: 'error', profile: schedulerName });
      queue.addBackoff(queued);
      void this.recordFailure(current, REASON_SCHEDULER_ERROR, `running Reserve plugin: ${errorMessage(error)}`);
      return;
    }
    // Placed: its nomination, if any, is now an assumed pod on the node.
    queue.nominator.delete(key);
    cache.assumePod(queued.info, nodeName);
    const binding = this.bind(queued, state, nodeName, started).finally(() => this.bindings.delete(binding));
    this.bindings.add(binding);
  }

  /**
   * The PostFilter for a pod that fits nowhere (Kubernetes' DefaultPreemption): when evicting pods
   * of lower priority makes room on a node, the pod is nominated to it at once (so later pods leave
   * that room alone), the victims are evicted, and only then does the pod say so in its status and
   * wait in the queue for them to go; the FailedScheduling message keeps the filters' reasons, and
   * says why preemption did not help when it did not.
   */
  private preempt(queued: QueuedPodInfo, cycle: number, state: CycleState, pod: Pod, fitError: FitError): void {
    const { client, queue, events, metrics, logger } = this.deps;
    metrics?.preemptionAttempts.inc();
    const result = this.deps.preemption!.preempt(state, pod, fitError);
    const key = queued.info.key;
    if (result.candidate === undefined) {
      if (result.nominatedNodeName === '') queue.nominator.delete(key);
      queue.addUnschedulable(queued, cycle);
      void this.recordFailure(pod, REASON_UNSCHEDULABLE, `${fitError.message} ${result.message}`, result.nominatedNodeName);
      return;
    }
    const { candidate } = result;
    metrics?.preemptionVictims.observe(candidate.victims.pods.length);
    const priority = podPriority(pod);
    const lower = queue.nominator.forNode(candidate.nodeName).filter((p) => p.key !== key && podPriority(p.pod) < priority);
    for (const p of lower) queue.nominator.delete(p.key);
    queue.nominator.nominate(queued.info, candidate.nodeName);
    const work = evictVictims(
      client,
      events,
      logger,
      pod,
      candidate,
      lower.map((p) => p.pod),
    )
      // The pod is tried again only once its status names the node, so it is never bound before it says so.
      .then(
        () => this.recordFailure(pod, REASON_UNSCHEDULABLE, fitError.message, candidate.nodeName),
        (error: unknown) => {
          // Kubernetes gives the nomination up and tries the pod again later.
          logger.error(`preempting for ${key} on ${candidate.nodeName} failed`, error);
          queue.nominator.delete(key);
          return this.recordFailure(pod, REASON_UNSCHEDULABLE, `${fitError.message} preemption: ${errorMessage(error)}`);
        },
      )
      .finally(() => {
        queue.addUnschedulable(queued, cycle);
        this.bindings.delete(work);
      });
    this.bindings.add(work);
  }

  private async bind(queued: QueuedPodInfo, state: CycleState, nodeName: string, started: number): Promise<void> {
    const { client, cache, queue, events, metrics, schedulerName, framework } = this.deps;
    const pod = queued.info.pod;
    const meta = pod.metadata ?? {};
    try {
      // Outside the binding slots: a pre-bind may wait long (for a claim to be provisioned).
      await framework.preBind(state, nodeName, this.stopping.signal);
    } catch (error) {
      framework.unreserve(state, nodeName);
      cache.forgetPod(queued.info.key);
      metrics?.bindings.inc({ result: 'error' });
      metrics?.attempts.inc({ result: 'error', profile: schedulerName });
      queue.addBackoff(queued);
      void this.recordFailure(pod, REASON_SCHEDULER_ERROR, errorMessage(error));
      return;
    }
    try {
      await this.bindingSlots.run(() =>
        client.pods.createSubresource(
          meta.name ?? '',
          'binding',
          {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid },
            target: { kind: 'Node', name: nodeName },
          },
          { namespace: meta.namespace },
        ),
      );
    } catch (error) {
      framework.unreserve(state, nodeName);
      cache.forgetPod(queued.info.key);
      metrics?.bindings.inc({ result: 'error' });
      if (isNotFound(error)) {
        queue.done(queued.info.key);
        return;
      }
      metrics?.attempts.inc({ result: 'error', profile: schedulerName });
      // A conflict is a pod bound, deleted or replaced meanwhile: its next attempt finds that out
      // from the informer and drops it; anything else is worth saying on the pod.
      queue.addBackoff(queued);
      if (!isConflict(error)) void this.recordFailure(pod, REASON_SCHEDULER_ERROR, `binding rejected: ${errorMessage(error)}`);
      return;
    }
    cache.finishBinding(queued.info.key);
    queue.done(queued.info.key);
    metrics?.bindings.inc({ result: 'scheduled' });
    metrics?.attempts.inc({ result: 'scheduled', profile: schedulerName });
    metrics?.attemptDuration.observe({ result: 'scheduled', profile: schedulerName }, (performance.now() - started) / 1000);
    events.record(pod, 'Normal', 'Scheduled', `Successfully assigned ${meta.namespace}/${meta.name} to ${nodeName}`);
  }

  /**
   * FailedScheduling, and PodScheduled=False with the same message unless the pod already says so;
   * in the same status write the nominated node when it changes (`''` clears it, undefined keeps it).
   * Settles once the status is written (or failed, which is logged).
   */
  private recordFailure(pod: Pod, reason: string, message: string, nominatedNodeName?: string): Promise<void> {
    this.deps.events.record(pod, 'Warning', 'FailedScheduling', message);
    const existing = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const nominationChanges = nominatedNodeName !== undefined && (pod.status?.nominatedNodeName ?? '') !== nominatedNodeName;
    if (existing?.status === 'False' && existing.reason === reason && existing.message === message && !nominationChanges) return Promise.resolve();
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason,
      message,
      lastTransitionTime: existing?.status === 'False' ? existing.lastTransitionTime : metaTime(),
    };
    const meta = pod.metadata ?? {};
    return this.deps.client.pods
      .patchStatus(
        meta.name ?? '',
        { status: { conditions: [condition], ...(nominationChanges ? { nominatedNodeName: nominatedNodeName || null } : {}) } },
        'strategic',
        { namespace: meta.namespace },
      )
      .catch((error: unknown) => {
        if (!isNotFound(error)) this.deps.logger.error(`updating the PodScheduled condition of ${meta.namespace}/${meta.name} failed`, error);
      })
      .then(() => undefined);
  }
}
