import type { Pod, PodDisruptionBudget } from '@svc/api';
import {
  countHealthyPods,
  currentDisruptedPods,
  DELETION_TIMEOUT_MS,
  desiredStatus,
  expectedPodCount,
  failSafeStatus,
  setStatusCondition,
  type ScaleFinder,
} from './budget-status';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, options: { ready?: boolean; owner?: string; deleting?: boolean } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      ...(options.owner
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: options.owner, uid: `uid-${options.owner}`, controller: true }] }
        : {}),
      ...(options.deleting ? { deletionTimestamp: at(NOW) } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    status: { conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

function budget(spec: PodDisruptionBudget['spec'], status?: PodDisruptionBudget['status']): PodDisruptionBudget {
  return { metadata: { name: 'b', namespace: 'ns', generation: 2 }, spec: { selector: {}, ...spec }, ...(status ? { status } : {}) };
}

/** Every ReplicaSet named `rs-N` has N replicas. */
const scales: ScaleFinder = async (ref) => (ref.name.startsWith('rs-') ? { uid: ref.uid, replicas: Number(ref.name.slice(3)) } : undefined);

describe('expectedPodCount', () => {
  const pods = [pod('a', { owner: 'rs-4' }), pod('b', { owner: 'rs-4' }), pod('c', { owner: 'rs-3' })];

  it('counts the selected pods for an integer minAvailable, and it is the desired count', async () => {
    expect(await expectedPodCount(budget({ minAvailable: 2 }), [...pods, pod('bare')], scales)).toEqual({
      expectedPods: 4,
      desiredHealthy: 2,
      unmanagedPods: [],
    });
  });

  it("sums the distinct controllers' scales for a percentage or maxUnavailable, rounding percentages up", async () => {
    expect(await expectedPodCount(budget({ minAvailable: '50%' }), pods, scales)).toMatchObject({ expectedPods: 7, desiredHealthy: 4 });
    expect(await expectedPodCount(budget({ maxUnavailable: 1 }), pods, scales)).toMatchObject({ expectedPods: 7, desiredHealthy: 6 });
    // 30% of 7 is 2.1, rounded up to 3 unavailable.
    expect(await expectedPodCount(budget({ maxUnavailable: '30%' }), pods, scales)).toMatchObject({ expectedPods: 7, desiredHealthy: 4 });
    expect(await expectedPodCount(budget({ maxUnavailable: 10 }), pods, scales)).toMatchObject({ expectedPods: 7, desiredHealthy: 0 });
  });

  it('sets pods without a controller aside, and fails naming a pod whose controller is not found', async () => {
    expect(await expectedPodCount(budget({ maxUnavailable: 1 }), [...pods, pod('bare')], scales)).toEqual({
      expectedPods: 7,
      desiredHealthy: 6,
      unmanagedPods: ['bare'],
    });
    await expect(expectedPodCount(budget({ maxUnavailable: 1 }), [pod('lost', { owner: 'gone' })], scales)).rejects.toThrow(
      'found no controllers for pod "lost"',
    );
  });

  it('expects nothing when neither bound is set', async () => {
    expect(await expectedPodCount(budget({}), pods, scales)).toEqual({ expectedPods: 0, desiredHealthy: 0, unmanagedPods: [] });
  });
});

describe('disrupted pods', () => {
  it('keeps entries of selected pods still there within the timeout, and says when the first runs out', () => {
    const recent = NOW - 30_000;
    const b = budget(
      { minAvailable: 1 },
      {
        disruptionsAllowed: 0,
        currentHealthy: 0,
        desiredHealthy: 0,
        expectedPods: 0,
        disruptedPods: { a: at(recent), b: at(NOW - 10_000), old: at(NOW - DELETION_TIMEOUT_MS - 1000), going: at(NOW), gone: at(NOW) },
      },
    );
    const pods = [pod('a'), pod('b'), pod('old'), pod('going', { deleting: true }), pod('c')];
    const { disruptedPods, recheckAt, notDeleted } = currentDisruptedPods(b, pods, NOW);
    expect(disruptedPods).toEqual({ a: at(recent), b: at(NOW - 10_000) });
    expect(recheckAt).toBe(recent + DELETION_TIMEOUT_MS);
    expect(notDeleted.map((p) => p.metadata?.name)).toEqual(['old']);
    expect(countHealthyPods(pods, disruptedPods)).toBe(2);
  });

  it('counts ready pods only', () => {
    expect(countHealthyPods([pod('a'), pod('b', { ready: false }), pod('c', { deleting: true })], {})).toBe(1);
  });
});

describe('the status', () => {
  const counts = { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: {} };

  it('allows what the healthy pods exceed the desired ones by, with a SufficientPods condition', () => {
    expect(desiredStatus(budget({ minAvailable: 2 }), counts, NOW)).toEqual({
      observedGeneration: 2,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 2, lastTransitionTime: at(NOW) }],
    });
  });

  it('allows nothing while no pod is expected, or none is spare', () => {
    expect(desiredStatus(budget({}), { ...counts, expectedPods: 0, desiredHealthy: 0 }, NOW)).toMatchObject({
      disruptionsAllowed: 0,
      conditions: [{ status: 'False', reason: 'InsufficientPods' }],
    });
    expect(desiredStatus(budget({ minAvailable: 5 }), { ...counts, desiredHealthy: 5 }, NOW)).toMatchObject({ disruptionsAllowed: 0 });
  });

  it('is undefined when the budget has it already; the transition time moves only with the condition status', () => {
    const first = desiredStatus(budget({ minAvailable: 2 }), counts, NOW)!;
    expect(desiredStatus(budget({ minAvailable: 2 }, first), counts, NOW + 5_000)).toBeUndefined();
    const more = desiredStatus(budget({ minAvailable: 2 }, first), { ...counts, currentHealthy: 4 }, NOW + 5_000)!;
    expect(more.conditions?.[0].lastTransitionTime).toBe(at(NOW));
    const none = desiredStatus(budget({ minAvailable: 2 }, more), { ...counts, currentHealthy: 2 }, NOW + 9_000)!;
    expect(none.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods', lastTransitionTime: at(NOW + 9_000) });
  });

  it('fails safe: no disruption allowed, SyncFailed with the message, and nothing to write the second time', () => {
    const synced = desiredStatus(budget({ maxUnavailable: 1 }), counts, NOW)!;
    const failed = failSafeStatus(budget({ maxUnavailable: 1 }, synced), 'found no controllers for pod "x"', NOW + 1_000)!;
    expect(failed).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 3, observedGeneration: 2 });
    expect(failed.conditions).toEqual([
      {
        type: 'DisruptionAllowed',
        status: 'False',
        reason: 'SyncFailed',
        message: 'found no controllers for pod "x"',
        observedGeneration: 2,
        lastTransitionTime: at(NOW + 1_000),
      },
    ]);
    expect(failSafeStatus(budget({ maxUnavailable: 1 }, failed), 'found no controllers for pod "x"', NOW + 2_000)).toBeUndefined();
  });

  it('sets a condition as metav1 does', () => {
    const one = setStatusCondition(undefined, { type: 'A', status: 'True', reason: 'R', message: '' }, NOW);
    expect(one).toEqual([{ type: 'A', status: 'True', reason: 'R', message: '', lastTransitionTime: at(NOW) }]);
    expect(setStatusCondition(one, { type: 'A', status: 'True', reason: 'S', message: 'm' }, NOW + 60_000)[0]).toMatchObject({
      reason: 'S',
      lastTransitionTime: at(NOW),
    });
  });
});
