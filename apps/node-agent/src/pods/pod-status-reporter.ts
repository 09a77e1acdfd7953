import { readFile } from 'node:fs/promises';
import type { Container, Pod, PodStatus } from '@svc/api';
import type { RuntimeContainerStatus } from '@svc/cri';
import { podDirectory } from '../volumes/volume-manager';
import { terminationLogPath } from '../containers/container-config';
import type { ContainerWaiting } from './plan-pod-actions';
import type { PodWorkerContext } from './pod-worker-context';
import { computePodStatus, type ContainerFacts } from './pod-status';
import { containerNameOf, type RuntimePod } from './runtime-pod';

/** Kubernetes' limits on a termination message: the file's first 4 KiB, or the last 80 lines and 2 KiB of the log. */
const MAX_MESSAGE_BYTES = 4096;
const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;

/**
 * Writes one pod's status (the kubelet's status manager, for one pod): computed from the runtime,
 * the reasons containers wait and their probes, and sent only when it changed. Termination messages
 * are read once per container.
 */
export class PodStatusReporter {
  private lastWritten = '';
  private readonly messages = new Map<string, string>();

  constructor(
    private readonly context: PodWorkerContext,
    private readonly uid: string,
  ) {}

  /** The next status is sent even if unchanged (it goes to a new object: a new mirror pod). */
  resend(): void {
    this.lastWritten = '';
  }

  /** Containers that are gone: their messages are no longer needed. */
  forget(containerIds: Iterable<string>): void {
    for (const id of containerIds) this.messages.delete(id);
  }

  /**
   * The pod's status now (`final`: every container is being stopped for good), written when it
   * differs from the last one written; the status written, or undefined when nothing was sent.
   */
  async report(
    pod: Pod,
    observed: RuntimePod,
    waiting: ReadonlyMap<string, ContainerWaiting>,
    final: boolean,
    starting: boolean,
  ): Promise<PodStatus | undefined> {
    const latest = new Map<string, RuntimeContainerStatus>();
    const previous = new Map<string, RuntimeContainerStatus>();
    for (const c of observed.containers) {
      const name = containerNameOf(c);
      if (!latest.has(name)) latest.set(name, c);
      else if (!previous.has(name)) previous.set(name, c);
    }
    const facts = await this.containerFacts(pod, latest, waiting);
    const status = computePodStatus({
      pod,
      observed: { latest, previous },
      facts,
      messages: this.messages,
      podIPs: observed.podIPs.length > 0 ? observed.podIPs : (pod.status?.podIPs ?? []).map((p) => p.ip),
      hostIPs: this.context.facts().hostIPs,
      terminating: final,
      now: new Date(),
    });
    // Transition times alone are no change: they follow from the rest.
    const text = JSON.stringify({ ...status, conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })) });
    if (text === this.lastWritten) return undefined;
    await this.context.startMetrics.step(starting, 'status_write', () => this.context.writeStatus(pod, status));
    this.lastWritten = text;
    return status;
  }

  private async containerFacts(
    pod: Pod,
    latest: ReadonlyMap<string, RuntimeContainerStatus>,
    waiting: ReadonlyMap<string, ContainerWaiting>,
  ): Promise<Map<string, ContainerFacts>> {
    const facts = new Map<string, ContainerFacts>();
    const probes = this.context.probes;
    const inits = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      const status = latest.get(container.name);
      const id = status?.id ?? '';
      const isInit = inits.has(container.name);
      facts.set(container.name, {
        waiting: waiting.get(container.name),
        ready: isInit ? false : probes.isReady(id),
        started: isInit ? status?.state === 'CONTAINER_RUNNING' : probes.isStarted(id),
      });
      if (status?.state === 'CONTAINER_EXITED') await this.readTerminationMessage(container, status);
    }
    // Ephemeral containers are never probed nor ready; started while they run.
    for (const container of pod.spec?.ephemeralContainers ?? []) {
      const status = latest.get(container.name);
      facts.set(container.name, { waiting: waiting.get(container.name), ready: false, started: status?.state === 'CONTAINER_RUNNING' });
      if (status?.state === 'CONTAINER_EXITED') await this.readTerminationMessage(container, status);
    }
    return facts;
  }

  /** The message a container left in its termination log, or (FallbackToLogsOnError) the end of its log. */
  private async readTerminationMessage(container: Container, status: RuntimeContainerStatus): Promise<void> {
    if (this.messages.has(status.id)) return;
    const file = terminationLogPath(podDirectory(this.context.rootDir, this.uid), container.name, status.metadata?.attempt ?? 0);
    let message = (await readFile(file, 'utf8').catch(() => '')).slice(0, MAX_MESSAGE_BYTES);
    if (!message && container.terminationMessagePolicy === 'FallbackToLogsOnError' && status.exitCode !== 0) {
      const log = await readFile(status.logPath, 'utf8').catch(() => '');
      message = log
        .split('\n')
        .filter((l) => l)
        .slice(-FALLBACK_LOG_LINES)
        // Each line of a CRI log is `<time> <stream> <tag> <text>`.
        .map((line) => line.split(' ').slice(3).join(' '))
        .join('\n')
        .slice(-FALLBACK_LOG_BYTES);
    }
    this.messages.set(status.id, message);
  }
}
