import type { Pod, ReplicaSet } from '@svc/api';
import { sumStatusReplicas } from './replica-set-counts';

/**
 * Whether any old pod may still run (Kubernetes' oldPodsRunning): an old ReplicaSet reports
 * replicas, or a pod of one that has not finished exists (a terminating one included, it may still
 * serve). Recreate starts the new pods only once this is false.
 */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], podsOf: (rs: ReplicaSet) => readonly Pod[]): boolean {
  if (sumStatusReplicas(oldRSs) > 0) return true;
  for (const rs of oldRSs) {
    if (newRS && rs.metadata?.uid === newRS.metadata?.uid) continue;
    for (const pod of podsOf(rs)) {
      const phase = pod.status?.phase;
      if (phase !== 'Failed' && phase !== 'Succeeded') return true;
    }
  }
  return false;
}
