import { maxRevision, replicaSetsToCleanUp, revisionOf, setNewReplicaSetAnnotations } from './revisions';
import { deployment, replicaSet } from './testing/fixtures';

describe('revisions', () => {
  it('reads revisions, skipping unreadable ones', () => {
    const bad = replicaSet('bad', 0);
    bad.metadata!.annotations!['deployment.kubernetes.io/revision'] = 'x';
    expect(revisionOf(bad)).toBeUndefined();
    expect(revisionOf(replicaSet('none', 0))).toBe(0);
    expect(maxRevision([replicaSet('a', 0, { revision: 3 }), bad, replicaSet('b', 0, { revision: 7 })])).toBe(7);
  });

  it('annotates a ReplicaSet about to be created: revision, sizes, and the Deployment annotations kubectl reads', () => {
    const d = deployment(10, { maxSurge: 3, maxUnavailable: 1 });
    d.metadata!.annotations = {
      'kubernetes.io/change-cause': 'kubectl set image deployment/web c=img:2',
      'team.example.com/owner': 'payments',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'deployment.kubernetes.io/revision': '4',
    };
    const rs = replicaSet('web-abc', 0);
    rs.metadata!.annotations = undefined;
    expect(setNewReplicaSetAnnotations(d, rs, 5, false)).toBe(true);
    expect(rs.metadata!.annotations).toEqual({
      'kubernetes.io/change-cause': 'kubectl set image deployment/web c=img:2',
      'team.example.com/owner': 'payments',
      'deployment.kubernetes.io/revision': '5',
      'deployment.kubernetes.io/desired-replicas': '10',
      'deployment.kubernetes.io/max-replicas': '13',
    });
  });

  it('gives a ReplicaSet that becomes new again the next revision, and keeps the old one in its history', () => {
    const d = deployment(3);
    const rs = replicaSet('web-abc', 3, { revision: 1 });
    expect(setNewReplicaSetAnnotations(d, rs, 3, true)).toBe(true);
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision']).toBe('3');
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(setNewReplicaSetAnnotations(d, rs, 5, true)).toBe(true);
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision-history']).toBe('1,3');
    // Already newest: nothing changes, and existing ReplicaSets keep their size annotations.
    expect(setNewReplicaSetAnnotations(d, rs, 5, true)).toBe(false);
    expect(setNewReplicaSetAnnotations(d, rs, 4, true)).toBe(false);
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/desired-replicas']).toBeUndefined();
  });

  it('bounds the revision history, dropping the oldest revisions', () => {
    const rs = replicaSet('web-abc', 3, { revision: 1000 });
    rs.metadata!.annotations!['deployment.kubernetes.io/revision-history'] = Array.from({ length: 600 }, (_, i) => String(i + 1)).join(',');
    setNewReplicaSetAnnotations(deployment(3), rs, 1001, true);
    const history = rs.metadata!.annotations!['deployment.kubernetes.io/revision-history'];
    expect(history.length).toBeLessThanOrEqual(2000);
    expect(history.endsWith(',600,1000')).toBe(true);
    expect(history.startsWith('1,')).toBe(false);
  });

  it('cleans up the lowest revisions beyond the limit, only when they run nothing', () => {
    const d = deployment(3);
    d.spec.revisionHistoryLimit = 2;
    const r1 = replicaSet('r1', 0, { revision: 1, ageSeconds: 50 });
    const r2 = replicaSet('r2', 0, { revision: 2, ageSeconds: 40 });
    const r3 = replicaSet('r3', 0, { revision: 3, ageSeconds: 30 });
    const r4 = replicaSet('r4', 0, { revision: 4, ageSeconds: 20 });
    expect(replicaSetsToCleanUp(d, [r4, r2, r3, r1]).map((rs) => rs.metadata!.name)).toEqual(['r1', 'r2']);
    const running = replicaSet('r1', 0, { revision: 1, statusReplicas: 1 });
    const unobserved = replicaSet('r2', 0, { revision: 2, generation: 3, observedGeneration: 2 });
    expect(replicaSetsToCleanUp(d, [running, unobserved, r3, r4])).toEqual([]);
    d.spec.revisionHistoryLimit = 0;
    expect(replicaSetsToCleanUp(d, [r1]).length).toBe(1);
    d.spec.revisionHistoryLimit = undefined;
    expect(replicaSetsToCleanUp(d, [r1])).toEqual([]);
  });
});
