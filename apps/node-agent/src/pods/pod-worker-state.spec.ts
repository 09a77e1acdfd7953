import type { Pod } from '@svc/api';
import {
  advancePodState,
  initialPodState,
  podCleanedUp,
  podIntent,
  podStarted,
  podTerminated,
  removesResources,
  type PodIntent,
  type PodWorkerState,
} from './pod-worker-state';

const T0 = 1_800_000_000_000;
const running: PodIntent = { deleted: false, removed: false, finished: false, gracePeriodSeconds: 30 };

describe('the pod worker state', () => {
  it('reads what the source wants of a pod: deleted with its grace period, finished by its phase', () => {
    const pod: Pod = { metadata: { name: 'p', uid: 'u' }, spec: { containers: [], terminationGracePeriodSeconds: 12 }, status: { phase: 'Running' } };
    expect(podIntent(pod, false)).toEqual({ deleted: false, removed: false, finished: false, gracePeriodSeconds: 12 });
    const deleted = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: '2027-01-01T00:00:00Z', deletionGracePeriodSeconds: 3 } };
    expect(podIntent(deleted, false)).toEqual({ deleted: true, removed: false, finished: false, gracePeriodSeconds: 3 });
    expect(podIntent({ ...pod, spec: { containers: [] }, status: { phase: 'Failed' } }, true)).toEqual({
      deleted: false,
      removed: true,
      finished: true,
      gracePeriodSeconds: 30,
    });
  });

  it.each<[string, PodWorkerState, PodIntent, Partial<PodWorkerState>]>([
    ['a running pod stays in sync', initialPodState(T0), running, { phase: 'sync' }],
    [
      'a deleted pod starts terminating with its grace period',
      initialPodState(T0),
      { ...running, deleted: true, gracePeriodSeconds: 5 },
      { phase: 'terminating', reason: 'deleted', gracePeriodSeconds: 5, terminatingAt: T0 + 1 },
    ],
    [
      'removal from the source outranks deletion',
      initialPodState(T0),
      { ...running, deleted: true, removed: true },
      { phase: 'terminating', reason: 'removed', gracePeriodSeconds: 30 },
    ],
    [
      'a finished pod terminates with no grace: its containers have exited',
      initialPodState(T0),
      { ...running, finished: true },
      { phase: 'terminating', reason: 'finished', gracePeriodSeconds: 0 },
    ],
    [
      'a terminating pod keeps its reason and grace period when more changes',
      { phase: 'terminating', syncedAt: T0, terminatingAt: T0, reason: 'deleted', gracePeriodSeconds: 30 },
      { ...running, deleted: true, gracePeriodSeconds: 1 },
      { phase: 'terminating', reason: 'deleted', gracePeriodSeconds: 30 },
    ],
    [
      'a finished pod that is then deleted has its resources removed too',
      { phase: 'terminated', syncedAt: T0, terminatingAt: T0, terminatedAt: T0, reason: 'finished', gracePeriodSeconds: 0 },
      { ...running, finished: true, deleted: true },
      { phase: 'terminated', reason: 'deleted', terminatedAt: T0 },
    ],
    [
      'a pod removed from its source while terminating for its deletion is not deleted from the API again',
      { phase: 'terminating', syncedAt: T0, terminatingAt: T0, reason: 'deleted', gracePeriodSeconds: 30 },
      { ...running, deleted: true, removed: true },
      { phase: 'terminating', reason: 'removed', gracePeriodSeconds: 30 },
    ],
    [
      'a terminated pod never runs again, whatever its source says',
      { phase: 'terminated', syncedAt: T0, terminatingAt: T0, terminatedAt: T0, reason: 'finished', gracePeriodSeconds: 0 },
      running,
      { phase: 'terminated', reason: 'finished' },
    ],
  ])('%s', (_name, state, intent, expected) => {
    expect(advancePodState(state, intent, T0 + 1)).toMatchObject(expected);
  });

  it('stamps each step once: started, terminated, cleaned up', () => {
    let state = podStarted(initialPodState(T0), T0 + 1);
    expect(podStarted(state, T0 + 2).startedAt).toBe(T0 + 1);
    expect(podTerminated(state, T0 + 3)).toBe(state);
    state = advancePodState(state, { ...running, deleted: true }, T0 + 3);
    expect(podCleanedUp(state, T0 + 4).cleanedUpAt).toBeUndefined();
    state = podTerminated(state, T0 + 5);
    expect(state).toMatchObject({ phase: 'terminated', terminatingAt: T0 + 3, terminatedAt: T0 + 5 });
    expect(podCleanedUp(state, T0 + 6).cleanedUpAt).toBe(T0 + 6);
    expect(removesResources(state)).toBe(true);
    expect(removesResources({ ...state, reason: 'finished' })).toBe(false);
  });
});
