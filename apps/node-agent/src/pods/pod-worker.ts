import type { Pod, PodStatus } from '@svc/api';
import { errorMessage } from '@svc/machinery';
import { PodActionExecutor, RETRY_MS, type ExecutionResult } from './pod-action-executor';
import { planPodActions, type ContainerWaiting, type PodActions, type PodObservation, type UnhealthyContainer } from './plan-pod-actions';
import type { PodWorkerContext } from './pod-worker-context';
import { PodStatusReporter } from './pod-status-reporter';
import { advancePodState, initialPodState, isFinished, podCleanedUp, podIntent, podStarted, podTerminated, type PodWorkerState } from './pod-worker-state';
import { observeRuntimePod, signatureOf, type RuntimePod } from './runtime-pod';
import { SerialRunner } from './serial-runner';

/** What of a pod a sync acts on: a change elsewhere (status, resourceVersion, managed fields) needs no sync. */
function syncedFields(pod: Pod): string {
  const m = pod.metadata;
  return JSON.stringify([m?.labels, m?.annotations, m?.deletionTimestamp, m?.deletionGracePeriodSeconds, pod.spec]);
}

/**
 * Whether a newer version of a pod needs a sync. As the kubelet's pod config does, a change of
 * status alone (most often the agent's own write coming back) does not: a sync would find nothing
 * to do and cost a round of runtime calls while other pods are starting. A finished phase set from
 * outside does: the pod's containers stop.
 */
export function podChangeNeedsSync(previous: Pod, next: Pod): boolean {
  return syncedFields(next) !== syncedFields(previous) || isFinished(next) !== isFinished(previous);
}

/**
 * Drives one pod through its life, one sync at a time (the kubelet's pod worker): each sync moves
 * the worker's state by what the pod's source wants, looks at the runtime, plans (planPodActions),
 * applies the plan (PodActionExecutor) and writes the status. A restarted agent adopts what runs,
 * since every sync reads the runtime afresh.
 */
export class PodWorker {
  private pod: Pod;
  private state: PodWorkerState;
  private removedFromSource = false;
  private readonly waiting = new Map<string, ContainerWaiting>();
  /** Containers to restart at the next sync, with why (a failed liveness or startup probe), by runtime id. */
  private readonly unhealthy = new Map<string, UnhealthyContainer>();
  /** The runtime signature of the pod at the worker's last look. */
  private seen?: string;
  private looked = false;
  private readonly seenAt = performance.now();
  private readonly runner: SerialRunner;
  private readonly executor: PodActionExecutor;
  private readonly reporter: PodStatusReporter;
  /** Resolves once the pod's containers, sandboxes and resources are gone (after deletion or removal). */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    pod: Pod,
    private readonly context: PodWorkerContext,
    /** The worker is done (its pod is gone): the manager forgets it. */
    private readonly onFinished: (uid: string) => void,
  ) {
    this.pod = pod;
    this.state = initialPodState(Date.now());
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.runner = new SerialRunner(
      () => this.sync(),
      (error) => this.failed(error),
    );
    this.executor = new PodActionExecutor(context, this.uid, this.waiting);
    this.reporter = new PodStatusReporter(context, this.uid);
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  get current(): Pod {
    return this.pod;
  }

  /** Where the worker is in the pod's life. */
  get podState(): PodWorkerState {
    return this.state;
  }

  /** A newer version of the pod from its source. */
  update(pod: Pod): void {
    const needsSync = podChangeNeedsSync(this.pod, pod);
    this.pod = pod;
    if (needsSync) this.requestSync();
  }

  /**
   * The runtime relist's view of the pod's sandboxes and containers. A sync follows only when it
   * differs from what the worker itself saw last: the containers a sync just started show up in the
   * next relist, and syncing again for them would only repeat its runtime calls. A relist during a
   * sync is passed over: it may be older than the sync's own look (a container created, not yet
   * started), and a change it holds persists, so the next relist, a second later, still finds it.
   */
  runtimeChanged(signature: string): void {
    if (!this.runner.busy && signature !== this.seen) this.requestSync();
  }

  /** The pod was removed from its source without the agent's final delete: everything of it stops and goes. */
  removed(): void {
    this.removedFromSource = true;
    this.requestSync();
  }

  /** Writes the status again at the next sync even if it did not change (it goes to a new object: a new mirror pod). */
  resendStatus(): void {
    this.reporter.resend();
    this.requestSync();
  }

  markUnhealthy(containerId: string, message: string, graceSeconds?: number): void {
    this.unhealthy.set(containerId, { message, graceSeconds });
    this.requestSync();
  }

  requestSync(delayMs = 0): void {
    this.runner.request(delayMs);
  }

  /** Stops scheduling syncs (the agent is shutting down); running containers are left alone. */
  stop(): void {
    this.runner.stop();
  }

  private get starting(): boolean {
    return this.state.startedAt === undefined;
  }

  private failed(error: unknown): void {
    const meta = this.pod.metadata;
    this.context.log(`pod ${meta?.namespace}/${meta?.name}: ${errorMessage(error)}`);
    this.requestSync(RETRY_MS);
  }

  /** One sync: state, look, plan, act, status, and what comes next. */
  private async sync(): Promise<void> {
    this.state = advancePodState(this.state, podIntent(this.pod, this.removedFromSource), Date.now());
    if (this.state.phase === 'sync') this.context.startMetrics.syncs.inc();
    const observed = await this.look();
    const actions = planPodActions(this.pod, this.observation(observed), Date.now());
    const result = await this.executor.apply(this.pod, actions, observed, this.starting);
    for (const kill of actions.kill) this.unhealthy.delete(kill.id);
    if (result.sandboxFailed) await this.report('running', observed);
    else {
      await this.report(actions.status, result.stale && actions.status !== 'none' ? await this.look() : observed);
      if (!result.stale) this.seen = signatureOf(observed);
      this.reporter.forget(await this.executor.finish(this.pod, actions, observed));
    }
    this.next(actions, result);
  }

  private async look(): Promise<RuntimePod> {
    const observed = await observeRuntimePod(this.context.cri, this.uid);
    this.seen = signatureOf(observed);
    // A pod the agent finds running when it first looks (after a restart of the agent) is not starting.
    if (!this.looked && observed.sandboxId !== undefined) this.state = podStarted(this.state, Date.now());
    this.looked = true;
    return observed;
  }

  private observation(runtime: RuntimePod): PodObservation {
    const restartDelays = new Map<string, number>();
    for (const c of [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])]) {
      const delay = this.context.restartBackoff.activeDelay(`${this.uid}/${c.name}`);
      if (delay > 0) restartDelays.set(c.name, delay);
    }
    return { state: this.state, runtime, waiting: this.waiting, unhealthy: this.unhealthy, restartDelays };
  }

  /** Writes the status the plan asks for; the status written is the pod's from now on (its transition and start times carry over). */
  private async report(kind: PodActions['status'], observed: RuntimePod): Promise<void> {
    if (kind === 'none') return;
    const write = this.reporter.report(this.pod, observed, this.waiting, kind === 'final', this.starting);
    // The final status goes to a pod that may be gone already.
    const status = kind === 'final' ? await write.catch(() => undefined) : await write;
    if (status) this.written(status);
  }

  private written(status: PodStatus): void {
    if (this.starting && status.phase !== 'Pending') {
      this.state = podStarted(this.state, Date.now());
      if (status.phase === 'Running') this.context.startMetrics.podStart.observe((performance.now() - this.seenAt) / 1000);
    }
    this.pod = { ...this.pod, status };
  }

  /** The state the sync leaves the pod in, and when the next one runs. */
  private next(actions: PodActions, result: ExecutionResult): void {
    const now = Date.now();
    if (actions.teardown) return this.finish(now);
    if (this.state.phase === 'terminating') {
      this.state = podTerminated(this.state, now);
      return this.requestSync();
    }
    // A pod that just finished stops at once: the next sync finds it terminating.
    if (actions.resync || (this.state.phase === 'sync' && isFinished(this.pod))) this.requestSync();
    if (result.retryInMs !== undefined) this.requestSync(result.retryInMs);
    if (actions.retryAt !== undefined) this.requestSync(Math.max(1, actions.retryAt - now));
  }

  private finish(now: number): void {
    this.state = podCleanedUp(this.state, now);
    this.runner.stop();
    this.resolveDone();
    this.onFinished(this.uid);
  }
}
