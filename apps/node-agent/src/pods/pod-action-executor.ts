import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container, Pod } from '@svc/api';
import { isCriNotFound, type PodSandboxConfig, type RuntimeContainerStatus } from '@svc/cri';
import { errorMessage } from '@svc/machinery';
import { ImagePullError } from '../images/image-manager';
import { podDirectory, VolumeError, type MountedVolume } from '../volumes/volume-manager';
import { containerConfig } from '../containers/container-config';
import { hostsFileContent } from '../containers/hosts-file';
import { podDns } from '../containers/pod-dns';
import { containerEnvironment } from '../containers/environment';
import { serviceEnvironment } from '../containers/service-environment';
import { ContainerConfigError } from '../objects/container-config-error';
import { removePodCgroups } from '../containers/pod-cgroups';
import { beyondNewestTwo, type ContainerToKill, type ContainerToStart, type ContainerWaiting, type PodActions } from './plan-pod-actions';
import type { PodWorkerContext } from './pod-worker-context';
import { runHandler } from '../probes/handler-runner';
import { podLogDirectoryName } from '../containers/runtime-labels';
import { containerNameOf, useSandbox, type RuntimePod } from './runtime-pod';
import { sandboxConfig } from '../containers/sandbox-config';

/**
 * The running container an ephemeral container's target names, in the current sandbox (the
 * kubelet's getTargetID); a target that is not running is a config error, tried again later.
 */
function targetContainerId(observed: RuntimePod, name: string | undefined): string | undefined {
  if (!name) return undefined;
  const target = observed.containers.find((c) => containerNameOf(c) === name && observed.sandboxOf.get(c.id) === observed.sandboxId);
  if (target?.state !== 'CONTAINER_RUNNING') throw new ContainerConfigError(`unable to find target container ${name}`);
  return target.id;
}

/** Kubernetes never gives a container less than this to stop, whatever was asked. */
const MIN_GRACE_SECONDS = 2;
/** How soon a pod whose sandbox, volumes or containers could not be set up is tried again. */
export const RETRY_MS = 2_000;
/** How soon an image that can never be had (a bad name, `Never` pulled) is looked at again. */
const IMAGE_RECHECK_MS = 10_000;
const MIN_RETRY_MS = 10;

/** What applying a plan left to do. */
export interface ExecutionResult {
  /** The runtime changed in ways the observation does not show: it is to be looked at again before the status. */
  stale: boolean;
  /** The pod's sandbox could not be made: nothing else was done. */
  sandboxFailed: boolean;
  /** Sync again in this many ms at the latest: something failed and is to be tried again. */
  retryInMs?: number;
}

/**
 * Applies a pod's planned actions through the runtime (the kubelet's SyncPod after
 * computePodActions): stops, the sandbox, volumes and the hosts file, container starts with their
 * image pulls and postStart hooks, probes; after the status, removals and the teardown. It notes in
 * the observation what it started, and in the waiting reasons why a container did not start.
 */
export class PodActionExecutor {
  private volumes = new Map<string, MountedVolume>();
  private hostsFile?: string;
  private result: ExecutionResult = { stale: false, sandboxFailed: false };

  constructor(
    private readonly context: PodWorkerContext,
    private readonly uid: string,
    private readonly waiting: Map<string, ContainerWaiting>,
  ) {}

  /** Everything of the plan that comes before the status write. */
  async apply(pod: Pod, actions: PodActions, observed: RuntimePod, starting: boolean): Promise<ExecutionResult> {
    this.result = { stale: false, sandboxFailed: false };
    for (const [name, waiting] of actions.waiting) {
      if (waiting) this.waiting.set(name, waiting);
      else this.waiting.delete(name);
    }
    for (const event of actions.events) this.context.event(pod, event.type, event.reason, event.message);
    await Promise.all(actions.kill.map((kill) => this.kill(pod, kill, observed)));
    for (const id of actions.stopSandboxes) await this.context.cri.stopPodSandbox(id).catch(() => undefined);
    if (actions.createSandbox && !(await this.createSandbox(pod, actions.createSandbox, observed, starting))) return this.result;
    if (actions.status === 'running' && (await this.prepare(pod, observed))) await this.syncContainers(pod, actions, observed, starting);
    if (actions.unprobeAll) this.context.probes.removePod(this.uid);
    for (const id of actions.unprobe) this.context.probes.remove(id);
    return this.result;
  }

  /** Everything of the plan that comes after the status write; the containers removed. */
  async finish(pod: Pod, actions: PodActions, observed: RuntimePod): Promise<string[]> {
    const cri = this.context.cri;
    const removed = [...actions.removeContainers, ...(actions.prune ? beyondNewestTwo(observed) : [])];
    for (const id of removed) await cri.removeContainer(id).catch(() => undefined);
    for (const id of actions.removeSandboxes) {
      await cri.stopPodSandbox(id).catch(() => undefined);
      await cri.removePodSandbox(id).catch(() => undefined);
    }
    if (actions.teardown) await this.teardown(pod, actions.teardown.finalDelete);
    return removed;
  }

  private retry(ms: number): void {
    this.result.retryInMs = Math.min(this.result.retryInMs ?? ms, ms);
  }

  private setWaiting(container: Container, waiting: ContainerWaiting): void {
    this.waiting.set(container.name, waiting);
  }

  /** preStop (for a running container, within the grace period), then a stop with what is left of it. */
  private async kill(pod: Pod, kill: ContainerToKill, observed: RuntimePod): Promise<void> {
    const context = this.context;
    this.result.stale = true;
    context.probes.remove(kill.id);
    if (kill.message) context.event(pod, 'Normal', 'Killing', kill.message);
    const started = Date.now();
    const grace = kill.graceSeconds;
    const container = kill.container;
    const preStop = container?.lifecycle?.preStop;
    const running = observed.containers.find((c) => c.id === kill.id)?.state === 'CONTAINER_RUNNING';
    if (container && preStop && running && grace > 0) {
      const sleep = (preStop as { sleep?: { seconds: number } }).sleep;
      const hook = sleep
        ? new Promise<void>((resolve) => setTimeout(resolve, Math.min(sleep.seconds, grace) * 1000))
        : runHandler(context.cri, preStop, container, kill.id, observed.podIPs[0] ?? '', grace).then((outcome) => {
            if (!outcome.ok) context.event(pod, 'Warning', 'FailedPreStopHook', `PreStopHook failed: ${outcome.message}`);
          });
      await Promise.race([hook, new Promise((resolve) => setTimeout(resolve, grace * 1000))]);
    }
    const left = Math.max(MIN_GRACE_SECONDS, Math.ceil(grace - (Date.now() - started) / 1000));
    try {
      await context.cri.stopContainer(kill.id, grace === 0 ? 0 : left);
    } catch (error) {
      if (!isCriNotFound(error)) throw error;
    }
  }

  /** The old sandboxes go (with their containers), a new one runs; whether it does. */
  private async createSandbox(pod: Pod, plan: { attempt: number; replacing: string[] }, observed: RuntimePod, starting: boolean): Promise<boolean> {
    const cri = this.context.cri;
    const removed = new Set<string>();
    for (const id of plan.replacing) {
      await cri.stopPodSandbox(id).catch(() => undefined);
      await cri.removePodSandbox(id).then(
        () => removed.add(id),
        () => undefined,
      );
    }
    let id: string;
    try {
      const dns = podDns(pod, this.context.sandbox);
      const config = sandboxConfig(pod, plan.attempt, this.context.sandbox, dns.config);
      for (const notice of dns.notices) {
        if (notice.on === 'node') this.context.nodeEvent('Warning', notice.reason, notice.message);
        else this.context.event(pod, 'Warning', notice.reason, notice.message);
      }
      await mkdir(config.logDirectory ?? '', { recursive: true });
      // The kubelet's LookupRuntimeHandler: a pod naming a class runs on that class's handler; an unknown class fails the sandbox.
      const className = pod.spec?.runtimeClassName;
      const handler = className ? await this.context.runtimeHandler(className) : '';
      id = await this.context.startMetrics.step(starting, 'sandbox', () => cri.runPodSandbox(config, handler));
    } catch (error) {
      this.context.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${errorMessage(error)}`);
      for (const c of pod.spec?.containers ?? []) this.setWaiting(c, { reason: 'ContainerCreating', message: errorMessage(error) });
      this.result.sandboxFailed = true;
      this.retry(RETRY_MS);
      return false;
    }
    // RemovePodSandbox removed the old sandboxes' containers and the new one holds none yet: what is left to learn is its IPs.
    Object.assign(observed, { sandboxes: [], containers: [], podIPs: [], sandboxOf: new Map() });
    const status = await useSandbox(cri, observed, id, plan.attempt);
    if (status && plan.replacing.every((old) => removed.has(old))) observed.sandboxes.push(status);
    else this.result.stale = true;
    return true;
  }

  /** Volumes and the hosts file; false (and a retry) when a volume cannot be set up yet. */
  private async prepare(pod: Pod, observed: RuntimePod): Promise<boolean> {
    try {
      this.volumes = await this.context.volumes.setUp(pod, { ...this.context.facts(), podIPs: observed.podIPs });
      const dir = podDirectory(this.context.rootDir, this.uid);
      await mkdir(dir, { recursive: true });
      const hostsFile = join(dir, 'etc-hosts');
      // A host-network pod's is the node's hosts file with its hostAliases: should the node's not be readable, the runtime's stays.
      const content = await hostsFileContent(pod, observed.podIPs, this.context.clusterDomain).catch((error: Error) => {
        this.context.log(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: the hosts file: ${error.message}`);
        return undefined;
      });
      if (content !== undefined) {
        await writeFile(hostsFile, content);
        this.hostsFile = hostsFile;
      }
      return true;
    } catch (error) {
      if (!(error instanceof VolumeError)) throw error;
      this.context.event(pod, 'Warning', 'FailedMount', error.event ?? `MountVolume.SetUp failed: ${error.message}`);
      for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) this.setWaiting(c, { reason: 'ContainerCreating' });
      this.retry(RETRY_MS);
      return false;
    }
  }

  private async syncContainers(pod: Pod, actions: PodActions, observed: RuntimePod, starting: boolean): Promise<void> {
    for (const id of actions.startCreated) {
      this.result.stale = true;
      await this.context.cri.startContainer(id).catch(() => undefined);
    }
    let sandbox: PodSandboxConfig;
    try {
      // The runtime wrote the pod's resolver when the sandbox was made: its notices were given then.
      sandbox = sandboxConfig(pod, observed.sandboxAttempt, this.context.sandbox, podDns(pod, this.context.sandbox).config);
    } catch (error) {
      this.context.log(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: the sandbox config: ${errorMessage(error)}`);
      this.retry(RETRY_MS);
      return;
    }
    for (const start of actions.start) await this.start(pod, start, observed, sandbox, starting);
    for (const { container, status } of actions.probe) this.ensureProbes(pod, container, status, observed);
  }

  /** Pulls the image, creates and starts the container, runs its postStart hook; a failure is noted as why it waits. */
  private async start(pod: Pod, start: ContainerToStart, observed: RuntimePod, sandbox: PodSandboxConfig, starting: boolean): Promise<void> {
    const { container, type } = start;
    if (start.restartAfter !== undefined) this.context.restartBackoff.next(`${this.uid}/${container.name}`, start.restartAfter);
    const imageRef = await this.pullImage(pod, container, sandbox, starting);
    if (imageRef === undefined) return;
    const id = await this.createContainer(pod, start, imageRef, observed, sandbox, starting);
    if (id === undefined) return;
    const context = this.context;
    observed.sandboxOf.set(id, observed.sandboxId ?? '');
    context.event(pod, 'Normal', 'Created', `Created container ${container.name}`);
    try {
      await context.startMetrics.step(starting, 'container_start', () => context.cri.startContainer(id));
    } catch (error) {
      return this.failed(pod, container, 'RunContainerError', error);
    }
    this.waiting.delete(container.name);
    context.event(pod, 'Normal', 'Started', `Started container ${container.name}`);
    await this.postStart(pod, container, id, observed);
    const status = await context.cri.containerStatus(id).catch(() => undefined);
    if (!status) {
      this.result.stale = true;
      return;
    }
    // The newest container of its name: the status written after this sync shows it.
    observed.containers.unshift(status);
    if (type === 'regular') this.ensureProbes(pod, container, status, observed);
  }

  /** The image reference to run, or undefined (and why the container waits, and when to look again). */
  private async pullImage(pod: Pod, container: Container, sandbox: PodSandboxConfig, starting: boolean): Promise<string | undefined> {
    const images = this.context.images;
    try {
      return await this.context.startMetrics.step(starting, 'image', () => images.ensure(pod, container, sandbox));
    } catch (error) {
      if (!(error instanceof ImagePullError)) throw error;
      const message = error.reason === 'ImagePullBackOff' ? `Back-off pulling image "${container.image}"` : error.message;
      this.setWaiting(container, { reason: error.reason, message });
      // As the kubelet's start of a container that failed: the reason in a Failed event of its own.
      this.context.event(pod, 'Warning', 'Failed', `Error: ${error.reason}`);
      if (error.reason === 'ErrImageNeverPull' || error.reason === 'InvalidImageName') this.retry(IMAGE_RECHECK_MS);
      else {
        const retryAt = images.retryAt(pod, container.image);
        this.retry(retryAt ? Math.max(MIN_RETRY_MS, retryAt - Date.now()) : RETRY_MS);
      }
      return undefined;
    }
  }

  private async createContainer(
    pod: Pod,
    start: ContainerToStart,
    imageRef: string,
    observed: RuntimePod,
    sandbox: PodSandboxConfig,
    starting: boolean,
  ): Promise<string | undefined> {
    const context = this.context;
    const { container, type, attempt } = start;
    try {
      const targetId = targetContainerId(observed, start.targetContainerName);
      const services = serviceEnvironment(pod, await context.services());
      const env = await containerEnvironment(pod, container, context.objects, { ...context.facts(), podIPs: observed.podIPs }, services);
      const config = await containerConfig(pod, container, {
        imageRef,
        env,
        volumes: this.volumes,
        podDir: podDirectory(context.rootDir, this.uid),
        hostsFile: this.hostsFile,
        attempt,
        type,
        targetId,
        resources: context.resources(),
        log: (message) => context.log(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${message}`),
      });
      return await context.startMetrics.step(starting, 'container_create', () => context.cri.createContainer(observed.sandboxId ?? '', config, sandbox));
    } catch (error) {
      this.failed(pod, container, error instanceof ContainerConfigError ? 'CreateContainerConfigError' : 'CreateContainerError', error);
      return undefined;
    }
  }

  /** A container that could not be created or started: it waits with the reason, an event says why, and the pod is tried again. */
  private failed(pod: Pod, container: Container, reason: string, error: unknown): void {
    // A config error changed nothing in the runtime; a failed create or start may have left a container.
    if (reason !== 'CreateContainerConfigError') this.result.stale = true;
    this.setWaiting(container, { reason, message: errorMessage(error) });
    this.context.event(pod, 'Warning', 'Failed', `Error: ${errorMessage(error)}`);
    this.retry(RETRY_MS);
  }

  private async postStart(pod: Pod, container: Container, id: string, observed: RuntimePod): Promise<void> {
    const postStart = container.lifecycle?.postStart;
    if (!postStart) return;
    const outcome = await runHandler(this.context.cri, postStart, container, id, observed.podIPs[0] ?? '', pod.spec?.terminationGracePeriodSeconds ?? 30);
    if (outcome.ok) return;
    this.context.event(pod, 'Warning', 'FailedPostStartHook', outcome.message);
    await this.context.cri.stopContainer(id, MIN_GRACE_SECONDS).catch(() => undefined);
  }

  /** Starts probing a running container unless its probes run already (a restarted agent carries over what was reported). */
  private ensureProbes(pod: Pod, container: Container, status: RuntimeContainerStatus, observed: RuntimePod): void {
    const probes = this.context.probes;
    if (probes.has(status.id)) return;
    const reported = pod.status?.containerStatuses?.find((s) => s.name === container.name && s.containerID?.endsWith(status.id));
    probes.add(
      pod,
      container,
      status.id,
      Math.floor(status.startedAt / 1e6) || Date.now(),
      () => observed.podIPs[0] ?? '',
      reported ? { ready: reported.ready, started: reported.started } : undefined,
    );
  }

  /** What the pod held on the node goes; a deleted pod is then deleted from the API for good. */
  private async teardown(pod: Pod, finalDelete: boolean): Promise<void> {
    const context = this.context;
    // In the background: the last processes may take a moment to leave, and the final delete need not wait.
    void removePodCgroups(this.uid, context.sandbox.cgroupRoot, context.sandbox.cgroupsPerQOS);
    await context.volumes.tearDown(this.uid);
    await context.objects.release(this.uid);
    context.images.forgetPod(this.uid);
    context.restartBackoff.forgetPrefix(`${this.uid}/`);
    const meta = pod.metadata ?? {};
    const logs = podLogDirectoryName({ namespace: meta.namespace ?? '', name: meta.name ?? '', uid: this.uid });
    await rm(join(context.sandbox.podLogRoot, logs), { recursive: true, force: true });
    if (finalDelete) await context.finalDelete(pod);
  }
}
