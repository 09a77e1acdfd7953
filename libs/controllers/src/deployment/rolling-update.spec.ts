import type { ReplicaSet } from '@svc/api';
import { dependableAvailable, specReplicas, sumPossiblePods, sumSpecReplicas } from './replica-set-counts';
import { resolveFenceposts, type IntOrPercent } from './rolling-update-bounds';
import { newReplicaSetReplicas, newReplicaSetTarget, oldReplicaSetsTargets } from './rolling-update';
import { deployment, replicaSet } from './testing/fixtures';

const sizes = (targets: { rs: ReplicaSet; replicas: number }[]) => Object.fromEntries(targets.map((t) => [t.rs.metadata!.name, t.replicas]));

describe('new ReplicaSet size', () => {
  it.each([
    // replicas, maxSurge, old, new, expected next size of new (undefined: stays)
    [10, 0, 10, 0, undefined],
    [10, 2, 10, 0, 2],
    [10, 2, 5, 0, 7],
    [10, 2, 10, 2, undefined],
    [10, '25%', 10, 0, 3],
    [10, 2, 0, 12, 10],
    [3, 1, 0, 0, 3],
  ] as const)('replicas %p, maxSurge %p, old %p, new %p: %p', (replicas, surge, oldSize, newSize, expected) => {
    const d = deployment(replicas, { maxSurge: surge, maxUnavailable: 1 });
    const old = replicaSet('old', oldSize, { ageSeconds: 60 });
    const next = replicaSet('new', newSize);
    expect(newReplicaSetTarget(d, [old, next], next)).toBe(expected);
  });

  it('waits for an old ReplicaSet scaled down to sync: until then its pods may outnumber its status', () => {
    // Scaled from 8 to 3 while a sync of its own may still be creating towards 8; its status (5 pods,
    // generation 1) is older than that change.
    const d = deployment(10, { maxSurge: 2, maxUnavailable: 1 });
    const next = replicaSet('new', 4);
    const behind = replicaSet('old', 3, { ageSeconds: 60, statusReplicas: 5, generation: 2, observedGeneration: 1 });
    expect(newReplicaSetTarget(d, [behind, next], next)).toBeUndefined();
    // Synced, with the pods its last sync made counted: the surge is used up until they are gone.
    const caughtUp = replicaSet('old', 3, { ageSeconds: 60, statusReplicas: 8, generation: 2, observedGeneration: 2 });
    expect(newReplicaSetTarget(d, [caughtUp, next], next)).toBeUndefined();
    const scaledDown = replicaSet('old', 3, { ageSeconds: 60, statusReplicas: 3, generation: 2, observedGeneration: 2 });
    expect(newReplicaSetTarget(d, [scaledDown, next], next)).toBe(9);
  });

  it('sizes a Recreate ReplicaSet at once', () => {
    const d = deployment(4, { recreate: true });
    const next = replicaSet('new', 0);
    expect(newReplicaSetReplicas(d, [replicaSet('old', 4), next], next)).toBe(4);
  });
});

describe('old ReplicaSets scale-down', () => {
  it('keeps spec.replicas - maxUnavailable available', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 2 });
    const old = replicaSet('old', 10, { ageSeconds: 60 });
    const next = replicaSet('new', 0);
    expect(sizes(oldReplicaSetsTargets(d, [old, next], [old], next))).toEqual({ old: 8 });
  });

  it('takes one pod at a time when both bounds resolve to zero', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: '5%' });
    const old = replicaSet('old', 10, { ageSeconds: 60 });
    const next = replicaSet('new', 0);
    expect(sizes(oldReplicaSetsTargets(d, [old, next], [old], next))).toEqual({ old: 9 });
  });

  it('removes unhealthy old replicas first', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 2 });
    const old = replicaSet('old', 10, { available: 8, ageSeconds: 60 });
    const next = replicaSet('new', 0);
    expect(sizes(oldReplicaSetsTargets(d, [old, next], [old], next))).toEqual({ old: 8 });
    const nine = replicaSet('old', 10, { available: 9, ageSeconds: 60 });
    expect(sizes(oldReplicaSetsTargets(d, [nine, next], [nine], next))).toEqual({ old: 8 });
  });

  it('does not scale down while the new pods it made room for are unavailable', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 2 });
    const old = replicaSet('old', 8, { ageSeconds: 60 });
    const next = replicaSet('new', 2, { available: 0 });
    expect(oldReplicaSetsTargets(d, [old, next], [old], next)).toEqual([]);
  });

  it('scales the oldest ReplicaSet down first', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 3 });
    const oldest = replicaSet('oldest', 4, { ageSeconds: 120 });
    const older = replicaSet('older', 6, { ageSeconds: 60 });
    const next = replicaSet('new', 0);
    expect(sizes(oldReplicaSetsTargets(d, [oldest, older, next], [oldest, older], next))).toEqual({ oldest: 1 });
  });

  it('does not count the pods a ReplicaSet still reports after being scaled down', () => {
    const d = deployment(10, { maxSurge: 0, maxUnavailable: 2 });
    // Scaled from 10 to 8 a moment ago; its status still says 10 available.
    const old = replicaSet('old', 8, { available: 10, ageSeconds: 60 });
    const next = replicaSet('new', 2, { available: 1 });
    expect(sizes(oldReplicaSetsTargets(d, [old, next], [old], next))).toEqual({ old: 7 });
  });
});

/**
 * Plays a whole rollout against a world whose ReplicaSets catch up with their size at random
 * moments and whose pods turn available a few at a time, and checks the bounds after every step:
 * never more than replicas + maxSurge pods wanted or existing, never fewer than
 * replicas - maxUnavailable surely available.
 */
function playRollout(replicas: number, surge: IntOrPercent, unavailable: IntOrPercent, seed: number): number {
  let random = seed;
  const next = () => (random = (random * 1103515245 + 12345) % 2147483648) / 2147483648;
  const d = deployment(replicas, { maxSurge: surge, maxUnavailable: unavailable });
  const bounds = resolveFenceposts(surge, unavailable, replicas);
  const minAvailable = replicas - Math.min(bounds.unavailable, replicas);
  const old = replicaSet('old', replicas, { ageSeconds: 60 });
  const fresh = replicaSet('new', 0, { available: 0 });
  const all = [old, fresh];
  for (let step = 1; step < 10_000; step++) {
    const target = newReplicaSetTarget(d, all, fresh);
    if (target !== undefined) fresh.spec.replicas = target;
    else for (const t of oldReplicaSetsTargets(d, all, [old], fresh)) t.rs.spec.replicas = t.replicas;

    expect(sumSpecReplicas(all)).toBeLessThanOrEqual(replicas + bounds.surge);
    expect(sumPossiblePods(all)).toBeLessThanOrEqual(replicas + bounds.surge);
    expect(all.reduce((n, rs) => n + dependableAvailable(rs), 0)).toBeGreaterThanOrEqual(minAvailable);

    // The world: a ReplicaSet that syncs deletes or creates pods to its size, and a few more of them turn available.
    for (const rs of all) {
      if (next() < 0.4) continue;
      rs.status!.replicas = specReplicas(rs);
      rs.status!.availableReplicas = Math.min(specReplicas(rs), (rs.status!.availableReplicas ?? 0) + Math.floor(next() * 3));
    }
    const settled = all.every((rs) => rs.status!.replicas === specReplicas(rs));
    if (settled && specReplicas(old) === 0 && specReplicas(fresh) === replicas && fresh.status!.availableReplicas === replicas) return step;
  }
  throw new Error('the rollout did not finish');
}

describe('a whole rolling update', () => {
  it.each([
    [10, '25%', '25%'],
    [10, 0, 1],
    [10, 1, 0],
    [10, 3, 2],
    [1, '25%', '25%'],
    [2, 0, '1%'],
    [7, '100%', 0],
    [5, 0, '100%'],
    [100, '10%', '5%'],
  ] as const)('of %p replicas with maxSurge %p and maxUnavailable %p holds both bounds at every step', (replicas, surge, unavailable) => {
    for (let seed = 1; seed <= 5; seed++) expect(playRollout(replicas, surge, unavailable, seed)).toBeGreaterThan(0);
  });
});
