import type { Pod, ReplicaSet } from '@svc/api';
import { oldPodsRunning } from './recreate';
import { replicaSet } from './testing/fixtures';

const pod = (phase: string): Pod => ({ metadata: { name: `p-${phase}` }, spec: { containers: [] }, status: { phase } }) as Pod;

describe('old pods running', () => {
  it('is true while an old ReplicaSet reports replicas or an old pod has not finished', () => {
    const next = replicaSet('v2', 3);
    const old = replicaSet('v1', 0, { statusReplicas: 0 });
    const podsOf = (pods: Record<string, Pod[]>) => (rs: ReplicaSet) => pods[rs.metadata!.name!] ?? [];
    expect(oldPodsRunning(next, [replicaSet('v1', 0, { statusReplicas: 2 })], podsOf({}))).toBe(true);
    expect(oldPodsRunning(next, [old], podsOf({ v1: [pod('Running')] }))).toBe(true);
    expect(oldPodsRunning(next, [old], podsOf({ v1: [pod('Unknown')] }))).toBe(true);
    expect(oldPodsRunning(next, [old], podsOf({ v1: [pod('Succeeded'), pod('Failed')] }))).toBe(false);
    expect(oldPodsRunning(undefined, [old], podsOf({}))).toBe(false);
  });
});
