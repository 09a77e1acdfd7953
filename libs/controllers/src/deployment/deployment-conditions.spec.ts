import type { Deployment } from '@svc/api';
import {
  calculateStatus,
  getCondition,
  newCondition,
  pausedConditionChange,
  progressCheckDelayMs,
  rolloutStatus,
  sameStatus,
  setCondition,
  type DeploymentStatus,
} from './deployment-conditions';
import { deployment, replicaSet } from './testing/fixtures';

const t0 = new Date('2024-05-01T10:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const progressing = (d: Deployment) => getCondition(d.status, 'Progressing');

describe('deployment status', () => {
  it('sums the ReplicaSets and judges availability against spec.replicas - maxUnavailable', () => {
    const d = deployment(10, { maxSurge: 3, maxUnavailable: 2, generation: 4 });
    const next = replicaSet('v2', 5, { available: 3, statusReplicas: 4 });
    const old = replicaSet('v1', 6, { available: 5 });
    const status = calculateStatus([old, next], next, d, t0);
    expect(status).toMatchObject({ observedGeneration: 4, replicas: 10, updatedReplicas: 4, readyReplicas: 8, availableReplicas: 8, unavailableReplicas: 3 });
    expect(getCondition(status, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    const short = calculateStatus([replicaSet('v1', 10, { available: 7 })], undefined, d, t0);
    expect(getCondition(short, 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
  });

  it('keeps a condition as it is when status and reason repeat, and its transition time when only the reason changes', () => {
    const status: DeploymentStatus = {};
    setCondition(status, newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'a', t0));
    setCondition(status, newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'b', at(5)));
    expect(getCondition(status, 'Progressing')).toMatchObject({ message: 'a', lastUpdateTime: '2024-05-01T10:00:00Z' });
    setCondition(status, newCondition('Progressing', 'True', 'ReplicaSetUpdated', 'c', at(9)));
    expect(getCondition(status, 'Progressing')).toMatchObject({
      reason: 'ReplicaSetUpdated',
      lastTransitionTime: '2024-05-01T10:00:00Z',
      lastUpdateTime: '2024-05-01T10:00:09Z',
    });
  });

  it('treats zero counts and absent ones alike', () => {
    expect(sameStatus({ replicas: 0, conditions: [] }, {})).toBe(true);
    expect(sameStatus({ collisionCount: 0 }, {})).toBe(false);
  });

  it('moves Progressing through a rollout: progress, completion, and the deadline', () => {
    const d = deployment(2, { maxSurge: 1, maxUnavailable: 0 });
    d.spec.progressDeadlineSeconds = 30;
    d.status = { conditions: [newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'Created new replica set "web-2"', t0)] };
    const old = replicaSet('web-1', 2, { ageSeconds: 60 });

    const growing = replicaSet('web-2', 1, { available: 0 });
    d.status = rolloutStatus([old, growing], growing, d, at(5));
    expect(progressing(d)).toMatchObject({
      status: 'True',
      reason: 'ReplicaSetUpdated',
      message: 'ReplicaSet "web-2" is progressing.',
      lastUpdateTime: '2024-05-01T10:00:05Z',
    });
    expect(progressCheckDelayMs(d, d.status, at(5))).toBe(31_000);

    // No progress past the deadline.
    d.status = rolloutStatus([old, growing], growing, d, at(40));
    expect(progressing(d)).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "web-2" has timed out progressing.' });
    expect(progressCheckDelayMs(d, d.status, at(40))).toBeUndefined();

    // Progress after a timeout moves it back to True; completion says so.
    const done = replicaSet('web-2', 2, { available: 2 });
    const gone = replicaSet('web-1', 0, { ageSeconds: 60 });
    d.status = rolloutStatus([gone, done], done, d, at(50));
    expect(progressing(d)).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-2" has successfully progressed.' });
    expect(progressCheckDelayMs(d, d.status, at(50))).toBeUndefined();
  });

  it('drops Progressing without a deadline and copies the new ReplicaSet failure', () => {
    const d = deployment(1);
    d.spec.progressDeadlineSeconds = 2147483647;
    d.status = { conditions: [newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'x', t0)] };
    const next = replicaSet('web-2', 1, { available: 0, statusReplicas: 0 });
    next.status!.conditions = [
      { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota exceeded', lastTransitionTime: '2024-05-01T09:59:00Z' },
    ];
    const status = rolloutStatus([next], next, d, t0);
    expect(getCondition(status, 'Progressing')).toBeUndefined();
    expect(getCondition(status, 'ReplicaFailure')).toMatchObject({ status: 'True', reason: 'FailedCreate', message: 'quota exceeded' });
  });

  it('records pausing and resuming, unless the rollout already timed out', () => {
    const d = deployment(1);
    d.spec.paused = true;
    expect(pausedConditionChange(d, t0)).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' });
    d.status = { conditions: [pausedConditionChange(d, t0)!] };
    expect(pausedConditionChange(d, t0)).toBeUndefined();
    d.spec.paused = false;
    expect(pausedConditionChange(d, t0)).toMatchObject({ status: 'Unknown', reason: 'DeploymentResumed' });
    d.status = { conditions: [newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', 'x', t0)] };
    d.spec.paused = true;
    expect(pausedConditionChange(d, t0)).toBeUndefined();
  });
});
