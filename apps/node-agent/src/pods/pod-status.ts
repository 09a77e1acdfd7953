import { metaTime } from '@svc/machinery';
import {
  podQosClassOf,
  type Container,
  type ContainerState,
  type ContainerStatus as ApiContainerStatus,
  type Pod,
  type PodCondition,
  type PodStatus,
} from '@svc/api';
import type { RuntimeContainerStatus } from '@svc/cri';

/** What the agent knows of one spec container beyond the runtime: why it waits, whether probes pass. */
export interface ContainerFacts {
  waiting?: { reason: string; message?: string };
  ready: boolean;
  started: boolean;
}

export interface ObservedContainers {
  /** The newest runtime container of each spec container name, in the current sandbox or before. */
  latest: ReadonlyMap<string, RuntimeContainerStatus>;
  /** The one before it (for lastState). */
  previous: ReadonlyMap<string, RuntimeContainerStatus>;
}

export interface StatusInputs {
  pod: Pod;
  observed: ObservedContainers;
  facts: ReadonlyMap<string, ContainerFacts>;
  /** Termination messages read after a container exited, by runtime id. */
  messages: ReadonlyMap<string, string>;
  podIPs: readonly string[];
  hostIPs: readonly string[];
  /** The pod's containers are being stopped for good (it is deleted or finished). */
  terminating: boolean;
  now: Date;
}

const RUNTIME = 'containerd';

function iso(nanos: number): string | undefined {
  return nanos > 0 ? metaTime(Math.floor(nanos / 1e6)) : undefined;
}

function terminatedState(status: RuntimeContainerStatus, message?: string): ContainerState {
  const reason = status.reason || (status.exitCode === 0 ? 'Completed' : 'Error');
  return {
    terminated: {
      exitCode: status.exitCode,
      reason,
      ...(message || status.message ? { message: message || status.message } : {}),
      startedAt: iso(status.startedAt),
      finishedAt: iso(status.finishedAt),
      containerID: `${RUNTIME}://${status.id}`,
    },
  };
}

function containerStatus(container: Container, inputs: StatusInputs, isInit: boolean): ApiContainerStatus {
  const latest = inputs.observed.latest.get(container.name);
  const previous = inputs.observed.previous.get(container.name);
  const facts = inputs.facts.get(container.name) ?? { ready: false, started: false };
  const status: ApiContainerStatus = {
    name: container.name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: 0,
    image: container.image,
    imageID: '',
    started: false,
  };
  if (!latest) {
    status.state = {
      waiting: {
        reason: facts.waiting?.reason ?? (isInit ? 'PodInitializing' : 'ContainerCreating'),
        ...(facts.waiting?.message ? { message: facts.waiting.message } : {}),
      },
    };
    if (!isInit && !facts.waiting && (inputs.pod.spec?.initContainers ?? []).length > 0) status.state = { waiting: { reason: 'PodInitializing' } };
    return status;
  }
  status.restartCount = latest.metadata?.attempt ?? 0;
  status.imageID = latest.imageRef;
  status.containerID = `${RUNTIME}://${latest.id}`;
  if (latest.state === 'CONTAINER_RUNNING') {
    status.state = { running: { startedAt: iso(latest.startedAt) } };
    status.ready = facts.ready && !inputs.terminating;
    status.started = facts.started;
    if (previous) status.lastState = terminatedState(previous, inputs.messages.get(previous.id));
  } else if (latest.state === 'CONTAINER_EXITED') {
    const terminated = terminatedState(latest, inputs.messages.get(latest.id));
    if (facts.waiting) {
      // Waiting to run again (CrashLoopBackOff): the exit is the last state.
      status.state = { waiting: { reason: facts.waiting.reason, ...(facts.waiting.message ? { message: facts.waiting.message } : {}) } };
      status.lastState = terminated;
    } else {
      status.state = terminated;
      if (previous) status.lastState = terminatedState(previous, inputs.messages.get(previous.id));
    }
  } else {
    status.state = { waiting: { reason: facts.waiting?.reason ?? 'ContainerCreating', ...(facts.waiting?.message ? { message: facts.waiting.message } : {}) } };
    if (previous) status.lastState = terminatedState(previous, inputs.messages.get(previous.id));
  }
  return status;
}

function condition(type: string, ok: boolean, previous: PodStatus | undefined, now: Date, reason?: string, message?: string): PodCondition {
  const before = previous?.conditions?.find((c) => c.type === type);
  const status = ok ? 'True' : 'False';
  return {
    type,
    status,
    lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** Kubernetes' pod phase from its container statuses and restart policy. */
export function podPhase(pod: Pod, init: readonly ApiContainerStatus[], regular: readonly ApiContainerStatus[]): PodStatus['phase'] {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const initSpecs = pod.spec?.initContainers ?? [];
  for (let i = 0; i < initSpecs.length; i++) {
    const status = init[i];
    const terminated = status?.state?.terminated;
    if (terminated && terminated.exitCode === 0) continue;
    const failed = terminated ?? status?.lastState?.terminated;
    if (failed && failed.exitCode !== 0 && policy === 'Never') return 'Failed';
    return 'Pending';
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const status of regular) {
    if (status.state?.running) running++;
    else if (status.state?.terminated) {
      stopped++;
      if (status.state.terminated.exitCode === 0) succeeded++;
    } else if (status.state?.waiting) {
      if (status.lastState?.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** The pod's conditions: Initialized, Ready (with its readiness gates), ContainersReady and PodScheduled; others' kept. */
function podConditions(
  inputs: StatusInputs,
  statuses: { init: readonly ApiContainerStatus[]; regular: readonly ApiContainerStatus[] },
  terminal: boolean,
): PodCondition[] {
  const { now } = inputs;
  const previous = inputs.pod.status;
  const initIncomplete = statuses.init.filter((s) => !(s.state?.terminated && s.state.terminated.exitCode === 0)).map((s) => s.name);
  const unready = statuses.regular.filter((s) => !s.ready).map((s) => s.name);
  const gates = (inputs.pod.spec?.readinessGates ?? []).map((g) => g.conditionType);
  const gatesFailing = gates.filter((type) => previous?.conditions?.find((c) => c.type === type)?.status !== 'True');
  const containersReady = unready.length === 0 && !terminal;
  const initialized = initIncomplete.length === 0 || terminal;
  const unreadyMessage = `containers with unready status: [${unready.join(' ')}]`;
  const notReady = terminal ? 'PodCompleted' : unready.length > 0 ? 'ContainersNotReady' : undefined;
  const conditions: PodCondition[] = [
    condition(
      'Initialized',
      initialized,
      previous,
      now,
      ...(initialized ? [] : ['ContainersNotInitialized', `containers with incomplete status: [${initIncomplete.join(' ')}]`]),
    ),
    condition(
      'Ready',
      containersReady && gatesFailing.length === 0,
      previous,
      now,
      notReady ?? (gatesFailing.length > 0 ? 'ReadinessGatesNotReady' : undefined),
      terminal
        ? undefined
        : unready.length > 0
          ? unreadyMessage
          : gatesFailing.length > 0
            ? `corresponding condition of pod readiness gate "${gatesFailing[0]}" does not exist.`
            : undefined,
    ),
    condition('ContainersReady', containersReady, previous, now, notReady, terminal || unready.length === 0 ? undefined : unreadyMessage),
    condition('PodScheduled', true, previous, now),
  ];
  // Conditions others own (readiness gates) are kept as they are.
  for (const other of previous?.conditions ?? []) if (!conditions.some((c) => c.type === other.type)) conditions.push(other);
  return conditions;
}

/** The pod's status as Kubernetes' node agent writes it. */
export function computePodStatus(inputs: StatusInputs): PodStatus {
  const { pod, now } = inputs;
  const initStatuses = (pod.spec?.initContainers ?? []).map((c) => containerStatus(c, inputs, true));
  const statuses = (pod.spec?.containers ?? []).map((c) => containerStatus(c, inputs, false));
  const phase = podPhase(pod, initStatuses, statuses);
  const status: PodStatus = {
    phase,
    conditions: podConditions(inputs, { init: initStatuses, regular: statuses }, phase === 'Succeeded' || phase === 'Failed'),
    hostIP: inputs.hostIPs[0],
    hostIPs: inputs.hostIPs.map((ip) => ({ ip })),
    startTime: pod.status?.startTime ?? now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    // Set once at creation and never changed (GetPodQOS).
    qosClass: podQosClassOf(pod),
    containerStatuses: statuses,
  };
  if (inputs.podIPs.length > 0) {
    status.podIP = inputs.podIPs[0];
    status.podIPs = inputs.podIPs.map((ip) => ({ ip }));
  }
  if (initStatuses.length > 0) status.initContainerStatuses = initStatuses;
  // Ephemeral containers count for neither the phase nor readiness (Kubernetes' ephemeralContainerStatuses).
  const ephemeral = (pod.spec?.ephemeralContainers ?? []).map((c) => containerStatus(c, inputs, false));
  if (ephemeral.length > 0) status.ephemeralContainerStatuses = ephemeral;
  return status;
}
