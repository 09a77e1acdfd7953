import type { Container, Pod } from '@svc/api';
import type { RuntimeContainerStatus } from '@svc/cri';
import type { ContainerType } from '../containers/container-config';
import type { PodEventType } from './pod-worker-context';
import { removesResources, type PodWorkerState } from './pod-worker-state';
import { containerNameOf, type RuntimePod } from './runtime-pod';
import { ANNOTATION_CONTAINER_HASH, containerHash } from '../containers/runtime-labels';

/** Why a container is not running, as its status shows it (CrashLoopBackOff, ErrImagePull, ...). */
export interface ContainerWaiting {
  reason: string;
  message?: string;
}

/** A running container whose liveness or startup probe failed: it is to be restarted. */
export interface UnhealthyContainer {
  message: string;
  /** The probe's own terminationGracePeriodSeconds, when it has one. */
  graceSeconds?: number;
}

/** Everything a worker knows of its pod beyond the pod object: its own state, the runtime, and what it remembers. */
export interface PodObservation {
  state: PodWorkerState;
  runtime: RuntimePod;
  /** Why each container waits, by container name (what the last syncs found). */
  waiting: ReadonlyMap<string, ContainerWaiting>;
  /** Containers whose probes failed, by runtime id. */
  unhealthy: ReadonlyMap<string, UnhealthyContainer>;
  /** The restart backoff in effect for each container (ms), by name; none when absent. */
  restartDelays: ReadonlyMap<string, number>;
}

export interface ContainerToStart {
  container: Container;
  type: ContainerType;
  attempt: number;
  /** An ephemeral container's target, whose process namespace it joins. */
  targetContainerName?: string;
  /** A restart after the exit at this time (ms since the epoch): the restart backoff grows. */
  restartAfter?: number;
}

export interface ContainerToKill {
  id: string;
  name: string;
  /** Its spec, when its preStop hook runs; without one it is stopped without hooks. */
  container?: Container;
  graceSeconds: number;
  /** The Killing event's message, when one is recorded. */
  message?: string;
}

export interface PodEvent {
  type: PodEventType;
  reason: string;
  message: string;
}

/** Which status a sync writes: none, the running pod's, or the final one (every container stopped). */
export type StatusToWrite = 'none' | 'running' | 'final';

/** What one sync does (the kubelet's podActions), in the order the executor takes it. */
export interface PodActions {
  /** Containers to stop first. */
  kill: ContainerToKill[];
  /** Sandboxes to stop: a finished pod runs nothing. */
  stopSandboxes: string[];
  /** A new sandbox with this attempt, for a pod that has none ready, once the old ones are removed. */
  createSandbox?: { attempt: number; replacing: string[] };
  /** Containers created but never started. */
  startCreated: string[];
  /** Containers to create and start, in order. */
  start: ContainerToStart[];
  /** Running containers to probe (those not probed yet are added); exited ones to stop probing, or all of the pod's. */
  probe: Array<{ container: Container; status: RuntimeContainerStatus }>;
  unprobe: string[];
  unprobeAll: boolean;
  /** Why containers wait from now on; undefined clears it. */
  waiting: Map<string, ContainerWaiting | undefined>;
  events: PodEvent[];
  status: StatusToWrite;
  /** Containers, then sandboxes, to remove after the status is written. */
  removeContainers: string[];
  removeSandboxes: string[];
  /** Exited containers beyond the newest two of a name go too, counted once the starts are done. */
  prune: boolean;
  /** The pod's volumes, cgroups, objects, backoffs and logs go; `finalDelete` removes it from the API. */
  teardown?: { finalDelete: boolean };
  /** Sync again no later than this (ms since the epoch): a restart backoff ends. */
  retryAt?: number;
  /** Sync again as soon as this one ends (a killed container is to be restarted). */
  resync: boolean;
}

/** How long Kubernetes waits at least before a retry it has timed: a backoff ending now is tried a moment later. */
const MIN_RETRY_MS = 10;

function noActions(status: StatusToWrite): PodActions {
  return {
    kill: [],
    stopSandboxes: [],
    removeSandboxes: [],
    startCreated: [],
    start: [],
    probe: [],
    unprobe: [],
    unprobeAll: false,
    waiting: new Map(),
    events: [],
    status,
    removeContainers: [],
    prune: false,
    resync: false,
  };
}

function specContainers(pod: Pod): Container[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
}

function isActive(c: RuntimeContainerStatus): boolean {
  return c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED';
}

function shouldRestart(policy: string, exitCode: number): boolean {
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

/**
 * What to do for the pod now: a pure function of the pod, what the worker observed and the time
 * (Kubernetes' computePodActions, with the terminating and terminated syncs beside it). A running
 * pod gets its sandbox, its init containers one at a time and then its containers, restarted by
 * its restart policy after their crash backoff; a terminating one has its containers stopped; a
 * terminated one runs nothing and, when it is deleted or removed, leaves nothing behind.
 */
export function planPodActions(pod: Pod, observed: PodObservation, now: number): PodActions {
  switch (observed.state.phase) {
    case 'sync':
      return observed.runtime.sandboxId === undefined ? planNewSandbox(pod, observed) : planSync(pod, observed, now);
    case 'terminating':
      return planStop(pod, observed);
    case 'terminated':
      return removesResources(observed.state) ? planTeardown(observed) : planStop(pod, observed);
  }
}

/** A pod with no ready sandbox: whatever runs stops, the old sandboxes go, and a new one starts with the first containers. */
function planNewSandbox(pod: Pod, observed: PodObservation): PodActions {
  const actions = noActions('running');
  const specs = specContainers(pod);
  for (const c of observed.runtime.containers.filter(isActive)) {
    const container = specs.find((s) => s.name === containerNameOf(c));
    actions.kill.push({ id: c.id, name: containerNameOf(c), container, graceSeconds: 0, message: container && `Stopping container ${container.name}` });
  }
  const sandboxes = observed.runtime.sandboxes;
  const attempt = sandboxes.reduce((max, s) => Math.max(max, (s.metadata?.attempt ?? 0) + 1), 0);
  actions.createSandbox = { attempt, replacing: sandboxes.map((s) => s.id) };
  // A pod has one sandbox at a time: the containers of the old ones go with them, and the count starts again.
  const first = pod.spec?.initContainers?.[0];
  if (first) actions.start.push({ container: first, type: 'init', attempt: 0 });
  else for (const container of pod.spec?.containers ?? []) actions.start.push({ container, type: 'regular', attempt: 0 });
  return actions;
}

function planSync(pod: Pod, observed: PodObservation, now: number): PodActions {
  const actions = noActions('running');
  if (planInitContainers(pod, observed, now, actions)) planContainers(pod, observed, now, actions);
  planEphemeralContainers(pod, observed, actions);
  actions.prune = true;
  return actions;
}

/**
 * Each ephemeral container the runtime has never run starts once in the running sandbox, even
 * before the pod is initialized; one that ran is never started again, whatever became of it.
 */
function planEphemeralContainers(pod: Pod, observed: PodObservation, actions: PodActions): void {
  for (const container of pod.spec?.ephemeralContainers ?? []) {
    if (containersNamed(observed.runtime, container.name).length > 0) continue;
    actions.start.push({ container, type: 'ephemeral', attempt: 0, targetContainerName: container.targetContainerName });
  }
}

/** The runtime containers of a spec container, newest first; only those of one sandbox when given. */
function containersNamed(runtime: RuntimePod, name: string, sandboxId?: string): RuntimeContainerStatus[] {
  const mine = runtime.containers.filter((c) => containerNameOf(c) === name);
  return sandboxId === undefined ? mine : mine.filter((c) => runtime.sandboxOf.get(c.id) === sandboxId);
}

function nextAttempt(runtime: RuntimePod, name: string): number {
  const latest = containersNamed(runtime, name)[0];
  return latest ? (latest.metadata?.attempt ?? 0) + 1 : 0;
}

/** Init containers run one at a time, in order, each to success; whether all have succeeded. */
function planInitContainers(pod: Pod, observed: PodObservation, now: number, actions: PodActions): boolean {
  const runtime = observed.runtime;
  for (const container of pod.spec?.initContainers ?? []) {
    const latest = containersNamed(runtime, container.name, runtime.sandboxId)[0];
    if (!latest) {
      actions.start.push({ container, type: 'init', attempt: nextAttempt(runtime, container.name) });
      return false;
    }
    if (latest.state === 'CONTAINER_RUNNING') return clearWaiting(actions, container.name, false);
    // Created but never started (its start failed, or the agent stopped in between): started now, as a regular container is.
    if (latest.state === 'CONTAINER_CREATED') {
      actions.startCreated.push(latest.id);
      return clearWaiting(actions, container.name, false);
    }
    if (latest.exitCode === 0) {
      clearWaiting(actions, container.name, true);
      continue;
    }
    if ((pod.spec?.restartPolicy ?? 'Always') !== 'Never') restartAfterBackoff(pod, observed, now, actions, { container, type: 'init', exited: latest });
    return false;
  }
  return true;
}

function clearWaiting(actions: PodActions, name: string, result: boolean): boolean {
  actions.waiting.set(name, undefined);
  return result;
}

function planContainers(pod: Pod, observed: PodObservation, now: number, actions: PodActions): void {
  const runtime = observed.runtime;
  const policy = pod.spec?.restartPolicy ?? 'Always';
  for (const container of pod.spec?.containers ?? []) {
    const latest = containersNamed(runtime, container.name)[0];
    if (!latest || runtime.sandboxOf.get(latest.id) !== runtime.sandboxId) {
      actions.start.push({ container, type: 'regular', attempt: nextAttempt(runtime, container.name) });
    } else if (latest.state === 'CONTAINER_RUNNING') {
      planRunning(pod, observed, actions, container, latest);
    } else if (latest.state === 'CONTAINER_CREATED') {
      actions.startCreated.push(latest.id);
    } else {
      actions.unprobe.push(latest.id);
      if (shouldRestart(policy, latest.exitCode)) restartAfterBackoff(pod, observed, now, actions, { container, type: 'regular', exited: latest });
      else actions.waiting.set(container.name, undefined);
    }
  }
}

/** A running container is probed, or killed (then restarted by its policy) when a probe failed or its spec changed. */
function planRunning(pod: Pod, observed: PodObservation, actions: PodActions, container: Container, running: RuntimeContainerStatus): void {
  actions.waiting.set(container.name, undefined);
  const unhealthy = observed.unhealthy.get(running.id);
  const hash = running.annotations?.[ANNOTATION_CONTAINER_HASH];
  const changed = hash !== undefined && hash !== containerHash(container);
  if (!unhealthy && !changed) {
    actions.probe.push({ container, status: running });
    return;
  }
  actions.kill.push({
    id: running.id,
    name: container.name,
    container,
    graceSeconds: unhealthy?.graceSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30,
    message: unhealthy?.message ?? `Container ${container.name} definition changed, will be restarted`,
  });
  // The next sync sees it exited and restarts it by the policy.
  actions.resync = true;
}

/** An exited container starts again once its crash backoff has passed; until then it waits in CrashLoopBackOff. */
function restartAfterBackoff(
  pod: Pod,
  observed: PodObservation,
  now: number,
  actions: PodActions,
  restart: { container: Container; type: ContainerType; exited: RuntimeContainerStatus },
): void {
  const { container, type, exited } = restart;
  const finishedAt = Math.floor(exited.finishedAt / 1e6);
  const delay = observed.restartDelays.get(container.name) ?? 0;
  if (delay <= 0 || now - finishedAt >= delay) {
    actions.start.push({ container, type, attempt: (exited.metadata?.attempt ?? 0) + 1, restartAfter: finishedAt });
    return;
  }
  const meta = pod.metadata ?? {};
  const message = `back-off ${Math.round(delay / 1000)}s restarting failed container=${container.name} pod=${meta.name}_${meta.namespace}(${meta.uid})`;
  if (observed.waiting.get(container.name)?.reason !== 'CrashLoopBackOff')
    actions.events.push({ type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container' });
  actions.waiting.set(container.name, { reason: 'CrashLoopBackOff', message });
  const at = Math.max(now + MIN_RETRY_MS, finishedAt + delay);
  actions.retryAt = Math.min(actions.retryAt ?? at, at);
}

/** Exited containers beyond the newest two of a name: the running one and the last exit (for --previous) stay. */
export function beyondNewestTwo(runtime: RuntimePod): string[] {
  const seen = new Map<string, number>();
  const extra: string[] = [];
  for (const c of runtime.containers) {
    const count = (seen.get(containerNameOf(c)) ?? 0) + 1;
    seen.set(containerNameOf(c), count);
    if (count > 2 && c.state === 'CONTAINER_EXITED') extra.push(c.id);
  }
  return extra;
}

/**
 * Every container still running stops. A deleted or removed pod's containers run their preStop
 * hooks within the grace period; a finished pod's have exited already, and its sandbox stops too.
 */
function planStop(pod: Pod, observed: PodObservation): PodActions {
  const actions = noActions('none');
  const state = observed.state;
  const graceful = removesResources(state);
  const specs = specContainers(pod);
  for (const c of observed.runtime.containers.filter(isActive)) {
    const container = graceful ? specs.find((s) => s.name === containerNameOf(c)) : undefined;
    const message = container && `Stopping container ${container.name}`;
    actions.kill.push({ id: c.id, name: containerNameOf(c), container, graceSeconds: graceful ? (state.gracePeriodSeconds ?? 0) : 0, message });
  }
  if (graceful) actions.unprobeAll = true;
  else if (observed.runtime.sandboxId !== undefined) actions.stopSandboxes = [observed.runtime.sandboxId];
  return actions;
}

/** A deleted or removed pod whose containers have stopped: its final status, then nothing of it stays. */
function planTeardown(observed: PodObservation): PodActions {
  const actions = noActions('final');
  actions.removeContainers = observed.runtime.containers.map((c) => c.id);
  actions.removeSandboxes = observed.runtime.sandboxes.map((s) => s.id);
  actions.teardown = { finalDelete: observed.state.reason === 'deleted' };
  return actions;
}
