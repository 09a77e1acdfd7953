import type { Job, Pod } from '@svc/api';
import { activePodsForRemoval } from './job-reconciler';
import { cleanUncounted, decideFinished, enactJobFinished, newSyncState, planTracking } from './job-sync-state';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const F = 'batch.kubernetes.io/job-tracking';

function job(spec: Partial<Job['spec']> = {}, status: Job['status'] = {}): Job {
  return { metadata: { name: 'j', namespace: 'ns', uid: 'job-uid' }, spec: { backoffLimit: 6, template: { spec: { containers: [] } }, ...spec }, status };
}

type Phase = NonNullable<NonNullable<Pod['status']>['phase']>;

function pod(uid: string, phase: Phase, extra: { index?: number; finalizer?: boolean; deleting?: boolean; ready?: boolean; exitCode?: number } = {}): Pod {
  const { index, finalizer = true, deleting = false, ready = false, exitCode } = extra;
  return {
    metadata: {
      uid,
      name: uid,
      namespace: 'ns',
      creationTimestamp: '2026-01-01T00:00:00Z',
      finalizers: finalizer ? [F] : [],
      ...(index === undefined ? {} : { annotations: { 'batch.kubernetes.io/job-completion-index': String(index) } }),
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:09:00Z' } : {}),
    },
    spec: { containers: [] },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      ...(exitCode === undefined ? {} : { containerStatuses: [{ name: 'c', state: { terminated: { exitCode, finishedAt: '2026-01-01T00:09:30Z' } } }] }),
    },
  };
}

describe('a Job sync', () => {
  it('counts active, ready and terminating pods, and newly ended ones once', () => {
    const pods = [
      pod('a', 'Running', { ready: true }),
      pod('b', 'Pending'),
      pod('c', 'Running', { deleting: true }),
      pod('d', 'Succeeded'),
      pod('e', 'Failed'),
    ];
    const state = newSyncState(
      job({}, { succeeded: 2, failed: 1, uncountedTerminatedPods: { failed: ['x'] } }),
      pods,
      new Set(),
      { failuresAfterLastSuccess: 0 },
      NOW,
    );
    expect(state.activePods.map((p) => p.metadata?.uid)).toEqual(['a', 'b']);
    expect({ ready: state.ready, terminating: state.terminating }).toEqual({ ready: 1, terminating: 1 });
    // d succeeded; c (deleted before it ended) and e failed; x is already uncounted.
    expect({ succeeded: state.succeeded, failed: state.failed }).toEqual({ succeeded: 3, failed: 4 });
    expect(state.job.status.startTime).toBe('2026-01-01T00:10:00Z');
  });

  it('does not count a pod whose finalizer removal is on its way, nor one already counted', () => {
    const pods = [pod('d', 'Succeeded'), pod('e', 'Succeeded', { finalizer: false })];
    const state = newSyncState(job({}, { succeeded: 1 }), pods, new Set(['d']), { failuresAfterLastSuccess: 0 }, NOW);
    expect(state.succeeded).toBe(1);
  });

  it('writes ended pods into uncountedTerminatedPods before their finalizers go, then moves them into the counters', () => {
    const pods = [pod('a', 'Running'), pod('d', 'Succeeded'), pod('e', 'Failed')];
    const state = newSyncState(job(), pods, new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    decideFinished(state, NOW);
    const plan = planTracking(state, NOW, false);
    expect(plan.needsFlush).toBe(true);
    expect(plan.podsToRemoveFinalizer.map((p) => p.metadata?.uid)).toEqual(['d', 'e']);
    expect(state.job.status.uncountedTerminatedPods).toEqual({ succeeded: ['d'], failed: ['e'] });
    // The finalizer of d came off, that of e did not (yet).
    expect(cleanUncounted(state.job.status, new Set(['a', 'e']))).toBe(true);
    expect(state.job.status).toMatchObject({ succeeded: 1, uncountedTerminatedPods: { failed: ['e'] } });
    expect(state.job.status.failed).toBeUndefined();
  });

  it('fails past backoffLimit: FailureTarget is written first, Failed once nothing is left to count or stopping', () => {
    const state = newSyncState(job({ backoffLimit: 0 }), [pod('e', 'Failed', { exitCode: 1 })], new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    decideFinished(state, NOW);
    expect(state.finishedCondition).toMatchObject({ type: 'FailureTarget', reason: 'BackoffLimitExceeded' });
    const plan = planTracking(state, NOW, false);
    expect(state.job.status.conditions?.map((c) => c.type)).toEqual(['FailureTarget']);
    expect(state.finishedCondition).toMatchObject({ type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(enactJobFinished(state, NOW)).toBe(false);
    cleanUncounted(state.job.status, new Set());
    expect(plan.podsToRemoveFinalizer).toHaveLength(1);
    state.terminating = 1;
    expect(enactJobFinished(state, NOW)).toBe(false);
    state.terminating = 0;
    expect(enactJobFinished(state, NOW)).toBe(true);
    expect(state.job.status.conditions?.map((c) => c.type)).toEqual(['FailureTarget', 'Failed']);
    expect(state.job.status.failed).toBe(1);
  });

  it('fails past the active deadline, and says when it will be when it is still ahead', () => {
    const late = newSyncState(job({ activeDeadlineSeconds: 60 }, { startTime: '2026-01-01T00:08:00Z' }), [], new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    decideFinished(late, NOW);
    expect(late.finishedCondition).toMatchObject({ type: 'FailureTarget', reason: 'DeadlineExceeded' });
    const early = newSyncState(job({ activeDeadlineSeconds: 600 }, { startTime: '2026-01-01T00:08:00Z' }), [], new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    expect(decideFinished(early, NOW)).toEqual({ deadlineInMs: 480_000 });
  });

  it('keeps an earlier FailureTarget and turns it into Failed', () => {
    const target = { type: 'FailureTarget', status: 'True' as const, reason: 'PodFailurePolicy', message: 'm' };
    const state = newSyncState(job({}, { conditions: [target] }), [], new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    decideFinished(state, NOW);
    expect(state.finishedCondition).toMatchObject({ type: 'Failed', reason: 'PodFailurePolicy', message: 'm' });
  });

  it('adds the succeeded indexes of an Indexed Job in order, each once', () => {
    const spec = { completionMode: 'Indexed' as const, completions: 5, parallelism: 5 };
    const pods = [
      pod('p3', 'Succeeded', { index: 3 }),
      pod('p1', 'Succeeded', { index: 1 }),
      pod('p1b', 'Succeeded', { index: 1 }),
      pod('bad', 'Succeeded', { index: 9 }),
    ];
    const state = newSyncState(job(spec, { completedIndexes: '0', succeeded: 1 }), pods, new Set(), { failuresAfterLastSuccess: 0 }, NOW);
    decideFinished(state, NOW);
    planTracking(state, NOW, false);
    expect(state.job.status).toMatchObject({ completedIndexes: '0,1,3', succeeded: 3 });
  });

  it('removes the pods of repeated or invalid indexes first, keeping the most advanced of each index', () => {
    const indexed = job({ completionMode: 'Indexed', completions: 3 });
    const running = pod('run', 'Running', { index: 1, ready: true });
    const pending = pod('pend', 'Pending', { index: 1 });
    const stray = pod('stray', 'Running', { index: 7 });
    const single = pod('one', 'Running', { index: 0 });
    expect(activePodsForRemoval(indexed, [running, pending, stray, single], 0).map((p) => p.metadata?.uid)).toEqual(['stray', 'pend']);
  });
});
