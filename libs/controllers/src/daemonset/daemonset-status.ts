import type { DaemonSet, Node } from '@svc/api';
import { isPodAvailable, isPodReady, podAvailableAt } from '../common/pod-status';
import { compareDaemonPods, type PodsByNode } from './daemon-pods-by-node';
import { isPodUpdated, templateGeneration } from './daemon-pod-revision';
import { nodeShouldRunDaemonPod } from './node-should-run';

/** The counts the controller writes into a DaemonSet's status. */
export interface DaemonSetCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/**
 * Kubernetes' updateDaemonSetStatus: over the nodes that should run the daemon, those that have a
 * pod, and whether the oldest one is ready, available and of the current revision; pods on nodes
 * that should not run it are misscheduled. `nextCheckMs` is when a ready pod becomes available
 * (minReadySeconds), for a sync then.
 */
export function calculateCounts(
  ds: DaemonSet,
  nodes: readonly Node[],
  pods: PodsByNode,
  hash: string,
  nowMs: number,
): DaemonSetCounts & { nextCheckMs?: number } {
  const counts: DaemonSetCounts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  const minReadySeconds = ds.spec.minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  let nextAt: number | undefined;
  for (const node of nodes) {
    const nodePods = pods.get(node.metadata?.name ?? '') ?? [];
    const scheduled = nodePods.length > 0;
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) {
      if (scheduled) counts.numberMisscheduled++;
      continue;
    }
    counts.desiredNumberScheduled++;
    if (!scheduled) continue;
    counts.currentNumberScheduled++;
    const pod = [...nodePods].sort(compareDaemonPods)[0];
    if (isPodReady(pod)) {
      counts.numberReady++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) counts.numberAvailable++;
      const at = podAvailableAt(pod, minReadySeconds, nowMs);
      if (at !== undefined) nextAt = nextAt === undefined ? at : Math.min(nextAt, at);
    }
    if (isPodUpdated(pod, hash, generation)) counts.updatedNumberScheduled++;
  }
  counts.numberUnavailable = counts.desiredNumberScheduled - counts.numberAvailable;
  return { ...counts, ...(nextAt !== undefined ? { nextCheckMs: nextAt - nowMs } : {}) };
}

/** Whether the stored status differs from `counts`, or has not observed the current generation (storeDaemonSetStatus). */
export function statusNeedsUpdate(ds: DaemonSet, counts: DaemonSetCounts): boolean {
  const status = ds.status ?? {};
  for (const key of Object.keys(counts) as Array<keyof DaemonSetCounts>) {
    if ((status[key] ?? 0) !== counts[key]) return true;
  }
  return (status.observedGeneration ?? 0) < Number(ds.metadata?.generation ?? 0);
}
