import type { ReplicaSet } from '@svc/api';
import { findActiveOrLatest, isSaturated, planScale } from './proportional-scaling';
import { deployment, replicaSet } from './testing/fixtures';

const sizes = (targets: { rs: ReplicaSet; replicas: number }[]) => Object.fromEntries(targets.map((t) => [t.rs.metadata!.name, t.replicas]));

describe('proportional scaling', () => {
  it('gives the only active ReplicaSet the whole size', () => {
    const d = deployment(12, { maxSurge: 0, maxUnavailable: 1 });
    const active = replicaSet('v2', 10, { desired: 10, max: 10 });
    const idle = replicaSet('v1', 0, { ageSeconds: 60 });
    expect(findActiveOrLatest(active, [idle])).toBe(active);
    expect(planScale(d, active, [idle])).toEqual({ targets: [{ rs: active, replicas: 12 }], operation: 'up', annotateUnchanged: false });
  });

  it('gives the newest ReplicaSet the size when none is active', () => {
    const d = deployment(3);
    const older = replicaSet('v1', 0, { ageSeconds: 120 });
    const newer = replicaSet('v2', 0, { ageSeconds: 60 });
    expect(findActiveOrLatest(undefined, [older, newer])).toBe(newer);
    expect(sizes(planScale(d, undefined, [older, newer]).targets)).toEqual({ v2: 3 });
  });

  it('scales the old ReplicaSets to zero once the new one is saturated', () => {
    const d = deployment(5, { maxSurge: 1, maxUnavailable: 0 });
    const saturated = replicaSet('v2', 5, { desired: 5, max: 6 });
    const old = replicaSet('v1', 1, { ageSeconds: 60, desired: 5, max: 6 });
    expect(isSaturated(d, saturated)).toBe(true);
    expect(planScale(d, saturated, [old])).toEqual({ targets: [{ rs: old, replicas: 0 }], operation: 'down', annotateUnchanged: false });
  });

  it('spreads a scale-up over the active ReplicaSets in proportion (5 -> 10)', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 1 });
    const next = replicaSet('v2', 2, { available: 0, desired: 5, max: 5 });
    const old = replicaSet('v1', 3, { ageSeconds: 60, desired: 5, max: 5 });
    const plan = planScale(d, next, [old]);
    expect(plan.operation).toBe('up');
    expect(sizes(plan.targets)).toEqual({ v1: 6, v2: 4 });
  });

  it('spreads a scale-down over the active ReplicaSets in proportion (5 -> 3)', () => {
    const d = deployment(3, { maxSurge: 0, maxUnavailable: 1 });
    const next = replicaSet('v2', 2, { available: 0, desired: 5, max: 5 });
    const old = replicaSet('v1', 3, { ageSeconds: 60, desired: 5, max: 5 });
    expect(sizes(planScale(d, next, [old]).targets)).toEqual({ v1: 2, v2: 1 });
  });

  it('keeps the surge in the proportions and hands the rounding leftover to the largest', () => {
    // 10 replicas with maxSurge 3 mid-rollout (13 pods), scaled to 20 (maxSurge 5): 25 pods.
    const d = deployment(20, { maxSurge: '25%', maxUnavailable: 0 });
    const next = replicaSet('v2', 6, { available: 2, desired: 10, max: 13 });
    const old = replicaSet('v1', 7, { ageSeconds: 60, desired: 10, max: 13 });
    const plan = planScale(d, next, [old]);
    expect(plan.targets.reduce((n, t) => n + t.replicas, 0)).toBe(25);
    expect(sizes(plan.targets)).toEqual({ v1: 13, v2: 12 });
  });

  it('scales every active ReplicaSet to zero with the Deployment', () => {
    const d = deployment(0);
    const next = replicaSet('v2', 4, { available: 1, desired: 8, max: 10 });
    const old = replicaSet('v1', 6, { ageSeconds: 60, desired: 8, max: 10 });
    expect(sizes(planScale(d, next, [old]).targets)).toEqual({ v1: 0, v2: 0 });
  });

  it('brings the size annotations up to date even when the sizes stay', () => {
    const d = deployment(10, { maxSurge: 3, maxUnavailable: 0 });
    const next = replicaSet('v2', 5, { available: 0, desired: 8, max: 11 });
    const old = replicaSet('v1', 8, { ageSeconds: 60, desired: 8, max: 11 });
    const plan = planScale(d, next, [old]);
    expect(plan.operation).toBe('');
    expect(plan.annotateUnchanged).toBe(true);
    expect(sizes(plan.targets)).toEqual({ v1: 8, v2: 5 });
  });
});
