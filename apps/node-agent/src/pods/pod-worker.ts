import { readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod, PodStatus } from '@svc/api';
import { isCriNotFound, type PodSandbox, type PodSandboxStatus, type RuntimeContainerStatus, type PodSandboxConfig } from '@svc/cri';
import { errorMessage } from '@svc/machinery';
import { ImagePullError } from '../images/image-manager';
import { podDirectory, VolumeError } from '../volumes/volume-manager';
import { containerConfig, hostsFileContent, terminationLogPath, type ContainerType } from './container-config';
import { ContainerConfigError, containerEnvironment } from './environment';
import type { ContainerFacts } from './pod-status';
import { computePodStatus } from './pod-status';
import type { PodRuntime } from './pod-runtime';
import { removePodCgroups } from './pod-cgroups';
import { runHandler } from './probe-runner';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID, ANNOTATION_CONTAINER_HASH, containerHash, podLogDirectoryName } from './runtime-labels';
import { podHostname, sandboxConfig } from './sandbox-config';

/** Kubernetes never gives a container less than this to stop, whatever was asked. */
const MIN_GRACE_SECONDS = 2;
/** How soon a pod whose volumes or config are not ready is tried again. */
const RETRY_MS = 2_000;

interface Observed {
  /** Every sandbox of the pod, newest first. */
  sandboxes: PodSandbox[];
  sandboxId?: string;
  sandboxConfig?: PodSandboxConfig;
  podIPs: string[];
  /** Every runtime container of the pod, newest first. */
  containers: RuntimeContainerStatus[];
}

function byNewest(a: { createdAt: number }, b: { createdAt: number }): number {
  return b.createdAt - a.createdAt;
}

/** The pod's runtime state as a relist sees it: each sandbox and container with its state. */
export function runtimeSignature(items: readonly { id: string; state: string }[]): string {
  return items
    .map((item) => `${item.id}:${item.state}`)
    .sort()
    .join(',');
}

/** What of a pod a sync acts on: a change elsewhere (status, resourceVersion, managed fields) needs no sync. */
function syncedFields(pod: Pod): string {
  const m = pod.metadata;
  return JSON.stringify([m?.labels, m?.annotations, m?.deletionTimestamp, m?.deletionGracePeriodSeconds, pod.spec]);
}

/** A finished phase set from outside (the agent's own write may not have come back yet) stops the pod's containers. */
function finished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

function shouldRestart(policy: string, exitCode: number): boolean {
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

/**
 * Drives one pod towards its spec, one sync at a time (Kubernetes' pod worker): a sandbox, the init
 * containers in order, then the containers, restarted by the restart policy with crash backoff; on
 * deletion, preStop hooks and a stop within the grace period, then the final delete. Each sync reads
 * the runtime afresh, so a restarted agent adopts what is running and restarts nothing.
 */
export class PodWorker {
  private pod: Pod;
  private running = false;
  private again = false;
  private timer?: NodeJS.Timeout;
  private readonly waiting = new Map<string, { reason: string; message?: string }>();
  private readonly messages = new Map<string, string>();
  /** Containers to restart at the next sync, with why (a failed liveness probe). */
  private readonly unhealthy = new Map<string, { message: string; grace?: number }>();
  private lastStatus = '';
  /** The runtime signature of the pod at the worker's last look. */
  private seen?: string;
  /**
   * Whether this sync changed the runtime in ways it did not note in its observation: the status is
   * then computed from a fresh look. Starting containers is noted (their status is read once started),
   * so a pod that just started writes its status without listing the runtime again.
   */
  private stale = false;
  /** Until the pod first runs (a pod the agent adopts running is not starting): its steps are start-up metrics. */
  private starting = true;
  private readonly seenAt = performance.now();
  private firstSync = true;
  private terminated = false;
  private stopped = false;
  /** Resolves once the pod's containers and sandbox are gone (after deletion). */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    pod: Pod,
    private readonly runtime: PodRuntime,
    /** Whether the pod is gone from the API (its worker is to clean up and finish). */
    private readonly onFinished: (uid: string) => void,
  ) {
    this.pod = pod;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  get current(): Pod {
    return this.pod;
  }

  /**
   * A newer version of the pod from its source. As the kubelet's pod config does, a change of status
   * alone (most often the agent's own write coming back) only replaces the object: a sync would find
   * nothing to do and cost a round of runtime calls while other pods are starting.
   */
  update(pod: Pod): void {
    const needsSync = syncedFields(pod) !== syncedFields(this.pod) || finished(pod) !== finished(this.pod);
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
    if (!this.running && signature !== this.seen) this.requestSync();
  }

  /** The pod was removed from the API without the agent's final delete: stop everything. */
  removed(): void {
    this.terminated = true;
    this.requestSync();
  }

  /** Writes the status again at the next sync even if it did not change (it goes to a new object: a new mirror pod). */
  resendStatus(): void {
    this.lastStatus = '';
    this.requestSync();
  }

  markUnhealthy(containerId: string, message: string, grace?: number): void {
    this.unhealthy.set(containerId, { message, grace });
    this.requestSync();
  }

  requestSync(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      const at = Date.now() + delayMs;
      if (this.timer && (this.timer as unknown as { at: number }).at <= at) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.requestSync();
      }, delayMs);
      (this.timer as unknown as { at: number }).at = at;
      this.timer.unref();
      return;
    }
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  /** Stops scheduling syncs (the agent is shutting down); running containers are left alone. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        try {
          await this.sync();
        } catch (error) {
          process.stderr.write(`svc-node-agent: pod ${this.pod.metadata?.namespace}/${this.pod.metadata?.name}: ${errorMessage(error)}\n`);
          this.requestSync(RETRY_MS);
        }
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
  }

  private async observe(): Promise<Observed> {
    const cri = this.runtime.cri;
    const sandboxes = (await cri.listPodSandbox({ labelSelector: { [LABEL_POD_UID]: this.uid } })).sort(byNewest);
    const ready = sandboxes.find((s) => s.state === 'SANDBOX_READY');
    const list = await cri.listContainers({ labelSelector: { [LABEL_POD_UID]: this.uid } });
    this.seen = runtimeSignature([...sandboxes, ...list]);
    // ListContainers says which sandbox each container belongs to; ContainerStatus does not.
    for (const c of list) this.sandboxOfContainer.set(c.id, c.podSandboxId);
    const containers: RuntimeContainerStatus[] = [];
    for (const c of list) {
      try {
        containers.push(await cri.containerStatus(c.id));
      } catch (error) {
        if (!isCriNotFound(error)) throw error;
      }
    }
    containers.sort(byNewest);
    const observed: Observed = { sandboxes, podIPs: [], containers };
    if (ready) await this.useSandbox(observed, ready.id, ready.metadata?.attempt ?? 0);
    return observed;
  }

  /** Makes the sandbox the one containers start in: its IPs (from the runtime) and config. */
  private async useSandbox(observed: Observed, id: string, attempt: number): Promise<PodSandboxStatus | undefined> {
    observed.sandboxId = id;
    const status = await this.runtime.cri.podSandboxStatus(id).catch(() => undefined);
    if (status?.network?.ip) observed.podIPs = [status.network.ip, ...(status.network.additionalIps ?? []).map((a) => a.ip)];
    observed.sandboxConfig = sandboxConfig(this.pod, attempt, this.runtime.sandbox);
    return status;
  }

  /** The observation, kept up to date by the sync itself, is what the worker has seen of the runtime. */
  private noteSeen(observed: Observed): void {
    this.seen = runtimeSignature([...observed.sandboxes, ...observed.containers]);
  }

  private containersOf(observed: Observed, name: string, sandboxId?: string): RuntimeContainerStatus[] {
    const list = observed.containers.filter((c) => c.labels?.[LABEL_CONTAINER_NAME] === name || c.metadata?.name === name);
    return sandboxId === undefined ? list : list.filter((c) => this.sandboxOf(c) === sandboxId);
  }

  private readonly sandboxOfContainer = new Map<string, string>();

  private sandboxOf(container: RuntimeContainerStatus): string | undefined {
    return this.sandboxOfContainer.get(container.id);
  }

  private async sync(): Promise<void> {
    const pod = this.pod;
    const phase = pod.status?.phase;
    if (this.terminated || pod.metadata?.deletionTimestamp) return this.terminate();
    this.stale = false;
    this.runtime.startMetrics.syncs.inc();
    let observed = await this.observe();
    if (this.firstSync && observed.sandboxId) this.starting = false;
    this.firstSync = false;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // A finished pod keeps its containers (for logs) but runs nothing, its sandbox included.
      await this.stopAll(observed, 0, false);
      if (observed.sandboxId) await this.runtime.cri.stopPodSandbox(observed.sandboxId).catch(() => undefined);
      return;
    }
    if (!observed.sandboxId) {
      observed = await this.createSandbox(observed);
      if (!observed.sandboxId) return;
    }
    const ok = await this.prepare(observed);
    if (ok) await this.syncContainers(observed);
    await this.writeStatus(this.stale ? await this.observe() : observed);
    await this.cleanupExited(observed);
  }

  private async createSandbox(observed: Observed): Promise<Observed> {
    const cri = this.runtime.cri;
    const pod = this.pod;
    // Whatever ran in an earlier sandbox stops: a pod has one sandbox at a time.
    await this.stopAll(observed, 0, true);
    const previous = observed.sandboxes;
    const attempt = previous.reduce((max, s) => Math.max(max, (s.metadata?.attempt ?? 0) + 1), 0);
    const removed = new Set<string>();
    for (const old of previous) {
      await cri.stopPodSandbox(old.id).catch(() => undefined);
      await cri.removePodSandbox(old.id).then(
        () => removed.add(old.id),
        () => undefined,
      );
    }
    const config = sandboxConfig(pod, attempt, this.runtime.sandbox);
    await mkdir(config.logDirectory ?? '', { recursive: true });
    let id: string;
    try {
      id = await this.runtime.startMetrics.step(this.starting, 'sandbox', () => cri.runPodSandbox(config));
    } catch (error) {
      this.runtime.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${errorMessage(error)}`);
      for (const c of pod.spec?.containers ?? []) this.waiting.set(c.name, { reason: 'ContainerCreating', message: errorMessage(error) });
      await this.writeStatus(observed);
      this.requestSync(RETRY_MS);
      return observed;
    }
    // The old sandboxes and their containers are gone (RemovePodSandbox removes them) and the new one
    // holds none yet: what is left to learn is its IPs.
    const fresh: Observed = { sandboxes: [], podIPs: [], containers: [] };
    const status = await this.useSandbox(fresh, id, attempt);
    if (status && previous.every((s) => removed.has(s.id))) {
      fresh.sandboxes.push(status);
      this.noteSeen(fresh);
    } else this.stale = true;
    return fresh;
  }

  /** Volumes and the hosts file; false (and a retry) when a volume cannot be set up yet. */
  private async prepare(observed: Observed): Promise<boolean> {
    const pod = this.pod;
    try {
      const facts = { ...this.runtime.facts(), podIPs: observed.podIPs };
      this.volumePaths = await this.runtime.volumes.setUp(pod, facts);
      if (!pod.spec?.hostNetwork) {
        const dir = podDirectory(this.runtime.rootDir, this.uid);
        await mkdir(dir, { recursive: true });
        this.hostsFile = join(dir, 'etc-hosts');
        await writeFile(this.hostsFile, hostsFileContent(pod, observed.podIPs, podHostname(pod), this.runtime.clusterDomain));
      }
      return true;
    } catch (error) {
      if (!(error instanceof VolumeError)) throw error;
      this.runtime.event(pod, 'Warning', 'FailedMount', `MountVolume.SetUp failed: ${error.message}`);
      for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) this.waiting.set(c.name, { reason: 'ContainerCreating' });
      this.requestSync(RETRY_MS);
      return false;
    }
  }

  private volumePaths: Map<string, string> = new Map();
  private hostsFile?: string;

  private async syncContainers(observed: Observed): Promise<void> {
    const pod = this.pod;
    const policy = pod.spec?.restartPolicy ?? 'Always';
    const sandboxId = observed.sandboxId!;
    // Init containers, one at a time, in order; each must succeed before the next starts.
    for (const container of pod.spec?.initContainers ?? []) {
      const mine = this.containersOf(observed, container.name, sandboxId);
      const latest = mine[0];
      if (!latest) return void (await this.start(container, 'init', observed, this.nextAttempt(observed, container.name)));
      if (latest.state === 'CONTAINER_RUNNING' || latest.state === 'CONTAINER_CREATED') {
        this.waiting.delete(container.name);
        return;
      }
      if (latest.exitCode === 0) {
        this.waiting.delete(container.name);
        continue;
      }
      if (policy === 'Never') return;
      await this.restartAfterBackoff(container, 'init', observed, latest);
      return;
    }
    for (const container of pod.spec?.containers ?? []) {
      const latest = this.containersOf(observed, container.name)[0];
      const inSandbox = latest && this.sandboxOf(latest) === sandboxId;
      if (!latest || !inSandbox) {
        await this.start(container, 'regular', observed, this.nextAttempt(observed, container.name));
        continue;
      }
      if (latest.state === 'CONTAINER_RUNNING') {
        this.waiting.delete(container.name);
        const unhealthy = this.unhealthy.get(latest.id);
        const changed =
          latest.annotations?.[ANNOTATION_CONTAINER_HASH] !== undefined && latest.annotations[ANNOTATION_CONTAINER_HASH] !== containerHash(container);
        if (unhealthy || changed) {
          const message = unhealthy?.message ?? `Container ${container.name} definition changed, will be restarted`;
          this.runtime.event(pod, 'Normal', 'Killing', message);
          await this.killContainer(container, latest, unhealthy?.grace ?? pod.spec?.terminationGracePeriodSeconds ?? 30);
          this.unhealthy.delete(latest.id);
          // The next sync sees it exited and restarts it by the policy.
          this.requestSync();
          continue;
        }
        this.ensureProbes(container, latest, observed);
        continue;
      }
      if (latest.state === 'CONTAINER_CREATED') {
        this.stale = true;
        await this.runtime.cri.startContainer(latest.id).catch(() => undefined);
        continue;
      }
      this.runtime.probes.remove(latest.id);
      await this.readTerminationMessage(container, latest);
      if (!shouldRestart(policy, latest.exitCode)) {
        this.waiting.delete(container.name);
        continue;
      }
      await this.restartAfterBackoff(container, 'regular', observed, latest);
    }
  }

  private nextAttempt(observed: Observed, name: string): number {
    const latest = this.containersOf(observed, name)[0];
    return latest ? (latest.metadata?.attempt ?? 0) + 1 : 0;
  }

  private async restartAfterBackoff(container: Container, type: ContainerType, observed: Observed, exited: RuntimeContainerStatus): Promise<void> {
    const key = `${this.uid}/${container.name}`;
    const finishedAt = Math.floor(exited.finishedAt / 1e6);
    const backoff = this.runtime.crashBackoff;
    if (backoff.isInBackoffSince(key, finishedAt)) {
      const delay = backoff.get(key);
      const message = `back-off ${Math.round(delay / 1000)}s restarting failed container=${container.name} pod=${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})`;
      if (this.waiting.get(container.name)?.reason !== 'CrashLoopBackOff')
        this.runtime.event(this.pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
      this.waiting.set(container.name, { reason: 'CrashLoopBackOff', message });
      this.requestSync(Math.max(10, finishedAt + delay - Date.now()));
      return;
    }
    backoff.next(key, finishedAt);
    await this.start(container, type, observed, (exited.metadata?.attempt ?? 0) + 1);
  }

  private async start(container: Container, type: ContainerType, observed: Observed, attempt: number): Promise<void> {
    const pod = this.pod;
    const runtime = this.runtime;
    let imageRef: string;
    try {
      imageRef = await runtime.startMetrics.step(this.starting, 'image', () => runtime.images.ensure(pod, container, observed.sandboxConfig!));
    } catch (error) {
      if (!(error instanceof ImagePullError)) throw error;
      const message = error.reason === 'ImagePullBackOff' ? `Back-off pulling image "${container.image}"` : error.message;
      this.waiting.set(container.name, { reason: error.reason, message });
      const retryAt = runtime.images.retryAt(pod, container.image);
      if (error.reason !== 'ErrImageNeverPull' && error.reason !== 'InvalidImageName')
        this.requestSync(retryAt ? Math.max(10, retryAt - Date.now()) : RETRY_MS);
      else this.requestSync(RETRY_MS * 5);
      return;
    }
    let id: string;
    try {
      const facts = { ...runtime.facts(), podIPs: observed.podIPs };
      const env = await containerEnvironment(pod, container, runtime.objects, facts);
      const config = await containerConfig(pod, container, {
        imageRef,
        env,
        volumePaths: this.volumePaths,
        podDir: podDirectory(runtime.rootDir, this.uid),
        hostsFile: this.hostsFile,
        attempt,
        type,
        resources: runtime.resources(),
      });
      id = await runtime.startMetrics.step(this.starting, 'container_create', () =>
        runtime.cri.createContainer(observed.sandboxId!, config, observed.sandboxConfig!),
      );
    } catch (error) {
      if (error instanceof ContainerConfigError) {
        this.waiting.set(container.name, { reason: 'CreateContainerConfigError', message: error.message });
        runtime.event(pod, 'Warning', 'Failed', `Error: ${error.message}`);
        this.requestSync(RETRY_MS);
        return;
      }
      this.stale = true;
      this.waiting.set(container.name, { reason: 'CreateContainerError', message: errorMessage(error) });
      runtime.event(pod, 'Warning', 'Failed', `Error: ${errorMessage(error)}`);
      this.requestSync(RETRY_MS);
      return;
    }
    this.sandboxOfContainer.set(id, observed.sandboxId!);
    runtime.event(pod, 'Normal', 'Created', `Created container ${container.name}`);
    try {
      await runtime.startMetrics.step(this.starting, 'container_start', () => runtime.cri.startContainer(id));
    } catch (error) {
      this.stale = true;
      this.waiting.set(container.name, { reason: 'RunContainerError', message: errorMessage(error) });
      runtime.event(pod, 'Warning', 'Failed', `Error: ${errorMessage(error)}`);
      this.requestSync(RETRY_MS);
      return;
    }
    this.waiting.delete(container.name);
    runtime.event(pod, 'Normal', 'Started', `Started container ${container.name}`);
    const postStart = container.lifecycle?.postStart;
    if (postStart) {
      const outcome = await runHandler(runtime.cri, postStart, container, id, observed.podIPs[0] ?? '', pod.spec?.terminationGracePeriodSeconds ?? 30);
      if (!outcome.ok) {
        runtime.event(pod, 'Warning', 'FailedPostStartHook', outcome.message);
        await runtime.cri.stopContainer(id, MIN_GRACE_SECONDS).catch(() => undefined);
      }
    }
    const status = await runtime.cri.containerStatus(id).catch(() => undefined);
    if (!status) {
      this.stale = true;
      return;
    }
    // The newest container of its name: the status written after this sync shows it.
    observed.containers.unshift(status);
    this.noteSeen(observed);
    if (type === 'regular') this.ensureProbes(container, status, observed);
  }

  private ensureProbes(container: Container, status: RuntimeContainerStatus, observed: Observed): void {
    const probes = this.runtime.probes;
    if (probes.has(status.id)) return;
    const reported = this.pod.status?.containerStatuses?.find((s) => s.name === container.name && s.containerID?.endsWith(status.id));
    const podIP = () => observed.podIPs[0] ?? '';
    probes.add(
      this.pod,
      container,
      status.id,
      Math.floor(status.startedAt / 1e6) || Date.now(),
      podIP,
      reported ? { ready: reported.ready, started: reported.started } : undefined,
    );
  }

  private async readTerminationMessage(container: Container, status: RuntimeContainerStatus): Promise<void> {
    if (this.messages.has(status.id)) return;
    let message = '';
    try {
      message = (await readFile(terminationLogPath(podDirectory(this.runtime.rootDir, this.uid), container.name, status.metadata?.attempt ?? 0), 'utf8')).slice(
        0,
        4096,
      );
    } catch {
      // no message file
    }
    if (!message && container.terminationMessagePolicy === 'FallbackToLogsOnError' && status.exitCode !== 0) {
      const log = await readFile(status.logPath, 'utf8').catch(() => '');
      message = log
        .split('\n')
        .filter((l) => l)
        .slice(-80)
        .map((line) => line.split(' ').slice(3).join(' '))
        .join('\n')
        .slice(-2048);
    }
    this.messages.set(status.id, message);
  }

  /** preStop, then stop within what is left of the grace period. */
  private async killContainer(container: Container | undefined, status: RuntimeContainerStatus, graceSeconds: number): Promise<void> {
    const runtime = this.runtime;
    this.stale = true;
    runtime.probes.remove(status.id);
    const started = Date.now();
    const preStop = container?.lifecycle?.preStop;
    if (preStop && status.state === 'CONTAINER_RUNNING' && graceSeconds > 0) {
      const sleep = (preStop as { sleep?: { seconds: number } }).sleep;
      const hook = sleep
        ? new Promise<void>((resolve) => setTimeout(resolve, Math.min(sleep.seconds, graceSeconds) * 1000))
        : runHandler(runtime.cri, preStop, container, status.id, (await this.observe().catch(() => undefined))?.podIPs[0] ?? '', graceSeconds).then(
            (outcome) => {
              if (!outcome.ok) runtime.event(this.pod, 'Warning', 'FailedPreStopHook', `PreStopHook failed: ${outcome.message}`);
            },
          );
      await Promise.race([hook, new Promise((resolve) => setTimeout(resolve, graceSeconds * 1000))]);
    }
    const left = Math.max(MIN_GRACE_SECONDS, Math.ceil(graceSeconds - (Date.now() - started) / 1000));
    try {
      await runtime.cri.stopContainer(status.id, graceSeconds === 0 ? 0 : left);
    } catch (error) {
      if (!isCriNotFound(error)) throw error;
    }
  }

  /** Stops every running container (in parallel, each with its preStop) and optionally the sandbox. */
  private async stopAll(observed: Observed, graceSeconds: number, withHooks: boolean): Promise<void> {
    const specs = [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])];
    const running = observed.containers.filter((c) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED');
    await Promise.all(
      running.map(async (c) => {
        const spec = specs.find((s) => s.name === (c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata?.name));
        if (withHooks && spec) this.runtime.event(this.pod, 'Normal', 'Killing', `Stopping container ${spec.name}`);
        await this.killContainer(withHooks ? spec : undefined, c, graceSeconds);
      }),
    );
  }

  private async terminate(): Promise<void> {
    const pod = this.pod;
    const runtime = this.runtime;
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    const observed = await this.observe();
    await this.stopAll(observed, grace, true);
    runtime.probes.removePod(this.uid);
    const after = await this.observe();
    // The final status: every container terminated.
    await this.writeStatus(after, true).catch(() => undefined);
    for (const c of after.containers) await runtime.cri.removeContainer(c.id).catch(() => undefined);
    for (const s of await runtime.cri.listPodSandbox({ labelSelector: { [LABEL_POD_UID]: this.uid } })) {
      await runtime.cri.stopPodSandbox(s.id).catch(() => undefined);
      await runtime.cri.removePodSandbox(s.id).catch(() => undefined);
    }
    // In the background: the last processes may take a moment to leave, and the final delete need not wait.
    void removePodCgroups(this.uid, runtime.sandbox.cgroupRoot, runtime.sandbox.cgroupsPerQOS);
    await runtime.volumes.tearDown(this.uid);
    await runtime.objects.release(this.uid);
    runtime.images.forgetPod(this.uid);
    runtime.crashBackoff.forgetPrefix(`${this.uid}/`);
    const logDir = join(
      runtime.sandbox.podLogRoot,
      podLogDirectoryName({ namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: this.uid }),
    );
    await rm(logDir, { recursive: true, force: true });
    if (!this.terminated) await runtime.finalDelete(pod);
    this.stopped = true;
    this.resolveDone();
    this.onFinished(this.uid);
  }

  private async cleanupExited(observed: Observed): Promise<void> {
    // Keep the newest two of each container (the running one and the last exit, for --previous).
    const seen = new Map<string, number>();
    for (const c of observed.containers) {
      const name = c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata?.name ?? '';
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      if (count > 2 && c.state === 'CONTAINER_EXITED') {
        await this.runtime.cri.removeContainer(c.id).catch(() => undefined);
        this.messages.delete(c.id);
        this.sandboxOfContainer.delete(c.id);
      }
    }
  }

  private async writeStatus(observed: Observed, terminating = false): Promise<void> {
    const pod = this.pod;
    const latest = new Map<string, RuntimeContainerStatus>();
    const previous = new Map<string, RuntimeContainerStatus>();
    for (const c of observed.containers) {
      const name = c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata?.name ?? '';
      if (!latest.has(name)) latest.set(name, c);
      else if (!previous.has(name)) previous.set(name, c);
    }
    const facts = new Map<string, ContainerFacts>();
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      const status = latest.get(container.name);
      const id = status?.id ?? '';
      const isInit = (pod.spec?.initContainers ?? []).some((c) => c.name === container.name);
      facts.set(container.name, {
        waiting: this.waiting.get(container.name),
        ready: isInit ? false : this.runtime.probes.isReady(id),
        started: isInit ? status?.state === 'CONTAINER_RUNNING' : this.runtime.probes.isStarted(id),
      });
      if (status && status.state === 'CONTAINER_EXITED') await this.readTerminationMessage(container, status);
    }
    const nodeFacts = this.runtime.facts();
    const status: PodStatus = computePodStatus({
      pod,
      observed: { latest, previous },
      facts,
      messages: this.messages,
      podIPs: observed.podIPs.length > 0 ? observed.podIPs : (pod.status?.podIPs ?? []).map((p) => p.ip),
      hostIPs: nodeFacts.hostIPs,
      terminating,
      now: new Date(),
    });
    const text = JSON.stringify({ ...status, conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })) });
    if (text === this.lastStatus) return;
    await this.runtime.startMetrics.step(this.starting, 'status_write', () => this.runtime.writeStatus(pod, status));
    this.lastStatus = text;
    if (this.starting && status.phase !== 'Pending') {
      this.starting = false;
      if (status.phase === 'Running') this.runtime.startMetrics.podStart.observe((performance.now() - this.seenAt) / 1000);
    }
    // Keep the written status so that the next computation carries its transition times and start time.
    this.pod = { ...this.pod, status };
  }
}
