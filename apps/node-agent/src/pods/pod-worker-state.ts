import type { Pod } from '@svc/api';

/**
 * Where a pod worker is in a pod's life, as the kubelet's pod workers have it: `sync` while the pod
 * is to run; `terminating` while its containers are being stopped; `terminated` once none runs.
 * A pod never goes back: a terminated pod is never started again.
 */
export type PodWorkerPhase = 'sync' | 'terminating' | 'terminated';

/**
 * Why a pod stops: `deleted` in the API (its resources go and the agent sends the final delete),
 * `removed` from its source without that (its resources go), or `finished` (phase Succeeded or
 * Failed: nothing runs, but its containers stay for their logs until it is deleted).
 */
export type TerminationReason = 'deleted' | 'removed' | 'finished';

export interface PodWorkerState {
  readonly phase: PodWorkerPhase;
  /** When the worker first saw the pod (ms since the epoch). */
  readonly syncedAt: number;
  /** When the pod first ran, or was found running: later starts are restarts, not start-up. */
  readonly startedAt?: number;
  readonly terminatingAt?: number;
  readonly terminatedAt?: number;
  readonly reason?: TerminationReason;
  /** How long its containers get to stop (seconds). */
  readonly gracePeriodSeconds?: number;
  /** Everything of the pod is gone from the node: the worker is done. */
  readonly cleanedUpAt?: number;
}

/** What the pod's source wants of it now. */
export interface PodIntent {
  /** Marked for deletion in the API. */
  deleted: boolean;
  /** Gone from its source without the agent's final delete. */
  removed: boolean;
  /** Its phase is Succeeded or Failed (set by the agent's own status write or from outside). */
  finished: boolean;
  /** The grace period a deletion or removal gives its containers. */
  gracePeriodSeconds: number;
}

/** Kubernetes' default terminationGracePeriodSeconds. */
export const DEFAULT_GRACE_SECONDS = 30;

export function isFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export function podIntent(pod: Pod, removed: boolean): PodIntent {
  return {
    deleted: pod.metadata?.deletionTimestamp !== undefined,
    removed,
    finished: isFinished(pod),
    gracePeriodSeconds: pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS,
  };
}

export function initialPodState(now: number): PodWorkerState {
  return { phase: 'sync', syncedAt: now };
}

function stopReason(intent: PodIntent): TerminationReason | undefined {
  if (intent.removed) return 'removed';
  if (intent.deleted) return 'deleted';
  return intent.finished ? 'finished' : undefined;
}

/** A later reason to stop outranks an earlier one: deletion a finish, removal a deletion (the pod is gone: no final delete). */
const RANK: Readonly<Record<TerminationReason, number>> = { finished: 0, deleted: 1, removed: 2 };

/**
 * The state the pod's intent moves the worker to: a running pod that is deleted, removed or finished
 * starts terminating (a finished one with no grace: its containers have exited); a stopping pod's
 * reason can only grow (a finished pod that is then deleted has its resources removed as well), and
 * its grace period stays.
 */
export function advancePodState(state: PodWorkerState, intent: PodIntent, now: number): PodWorkerState {
  const reason = stopReason(intent);
  if (reason === undefined) return state;
  if (state.phase === 'sync') {
    const gracePeriodSeconds = reason === 'finished' ? 0 : intent.gracePeriodSeconds;
    return { ...state, phase: 'terminating', terminatingAt: now, reason, gracePeriodSeconds };
  }
  return state.reason !== undefined && RANK[reason] > RANK[state.reason] ? { ...state, reason } : state;
}

/** The pod ran (its status left Pending), or the worker found it running: start-up is over. */
export function podStarted(state: PodWorkerState, now: number): PodWorkerState {
  return state.startedAt === undefined ? { ...state, startedAt: now } : state;
}

/** Every container of a terminating pod has stopped. */
export function podTerminated(state: PodWorkerState, now: number): PodWorkerState {
  return state.phase === 'terminating' ? { ...state, phase: 'terminated', terminatedAt: now } : state;
}

/** A terminated pod's resources are gone. */
export function podCleanedUp(state: PodWorkerState, now: number): PodWorkerState {
  return state.phase === 'terminated' ? { ...state, cleanedUpAt: now } : state;
}

/** Whether the pod's containers, sandboxes and node resources are to be removed (not kept for logs). */
export function removesResources(state: PodWorkerState): boolean {
  return state.reason === 'deleted' || state.reason === 'removed';
}
