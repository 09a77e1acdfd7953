import type { Pod, ReplicaSet } from '@svc/api';
import { calculateStatus, nextAvailabilityCheckMs, REPLICA_FAILURE, statusNeedsUpdate } from './replicaset-status';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

function rs(extra: Partial<ReplicaSet['spec']> = {}, status?: ReplicaSet['status']): ReplicaSet {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'u', generation: 3 },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [] } },
      ...extra,
    },
    status,
  };
}

function pod(labels: Record<string, string>, readyFor?: number): Pod {
  return {
    metadata: { name: 'p', labels },
    spec: { containers: [] },
    status:
      readyFor === undefined ? { phase: 'Pending' } : { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(readyFor) }] },
  };
}

describe('ReplicaSet status', () => {
  it('counts replicas, fully labelled, ready and available (ready for minReadySeconds) pods', () => {
    const pods = [pod({ app: 'web', tier: 'fe' }, 100), pod({ app: 'web' }, 5), pod({ app: 'web', tier: 'fe' })];
    const status = calculateStatus(rs({ minReadySeconds: 10 }), pods, undefined, NOW);
    expect(status).toEqual({ replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1 });
    expect(nextAvailabilityCheckMs(rs({ minReadySeconds: 10 }), pods, NOW)).toBe(5000);
    expect(nextAvailabilityCheckMs(rs(), pods, NOW)).toBeUndefined();
  });

  it('adds ReplicaFailure once when managing pods failed, and removes it when it works again', () => {
    const failed = calculateStatus(rs(), [], { message: 'forbidden' }, NOW);
    expect(failed.conditions).toEqual([
      { type: REPLICA_FAILURE, status: 'True', reason: 'FailedCreate', message: 'forbidden', lastTransitionTime: '2030-01-01T12:00:00Z' },
    ]);
    // Still failing later: the first condition stays as it was.
    const again = calculateStatus(rs({}, failed), [], { message: 'other' }, NOW + 60_000);
    expect(again.conditions).toEqual(failed.conditions);
    const healed = calculateStatus(rs({}, failed), [], undefined, NOW);
    expect(healed.conditions).toBeUndefined();
  });

  it('names a failure with too many pods FailedDelete', () => {
    const pods = Array.from({ length: 4 }, () => pod({ app: 'web' }));
    expect(calculateStatus(rs(), pods, { message: 'x' }, NOW).conditions?.[0].reason).toBe('FailedDelete');
  });

  it('reports terminating replicas only when they are counted', () => {
    expect(calculateStatus(rs(), [], undefined, NOW, 2).terminatingReplicas).toBe(2);
    expect(calculateStatus(rs({}, { terminatingReplicas: 2 }), [], undefined, NOW)).not.toHaveProperty('terminatingReplicas');
    expect(statusNeedsUpdate(rs({}, { replicas: 0, observedGeneration: 3 }), { replicas: 0, terminatingReplicas: 0 })).toBe(true);
  });

  it('needs a write only when a count, the conditions or the observed generation differ', () => {
    const current = { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 };
    expect(statusNeedsUpdate(rs({}, current), { ...current })).toBe(false);
    expect(statusNeedsUpdate(rs({}, current), { ...current, readyReplicas: 2 })).toBe(true);
    expect(statusNeedsUpdate(rs({}, { ...current, observedGeneration: 2 }), { ...current, observedGeneration: 2 })).toBe(true);
    expect(statusNeedsUpdate(rs({}, current), { ...current, conditions: [{ type: REPLICA_FAILURE, status: 'True' }] })).toBe(true);
  });
});
