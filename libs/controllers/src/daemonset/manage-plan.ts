import type { DaemonSet, Node, Pod } from '@svc/api';
import { isPodAvailable, isPodReady, isPodTerminating } from '../common/pod-status';
import { compareDaemonPods, type PodsByNode } from './daemon-pods-by-node';
import { DAEMON_SET_REVISION_HASH_LABEL } from './daemon-pod-revision';
import type { FailedPodBackoff } from './failed-pod-backoff';
import { nodeShouldRunDaemonPod } from './node-should-run';
import { allowsSurge } from './rolling-update-bounds';

/** An event the plan asks the controller to record on the DaemonSet. */
export interface DaemonSetEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Kubernetes' event reasons of the DaemonSet controller. */
export const DaemonSetReasons = {
  FailedDaemonPod: 'FailedDaemonPod',
  SucceededDaemonPod: 'SucceededDaemonPod',
  SelectingAll: 'SelectingAll',
} as const;

export interface ManagePlan {
  /** Nodes that get a new daemon pod. */
  nodesNeedingPods: string[];
  /** Pods to delete. */
  podsToDelete: Pod[];
  events: DaemonSetEvent[];
  /** A failed pod's deletion waits for its backoff: sync again after this long. */
  retryAfterMs?: number;
}

export interface ManageInput {
  ds: DaemonSet;
  nodes: readonly Node[];
  pods: PodsByNode;
  hash: string;
  nowMs: number;
  backoff: FailedPodBackoff;
}

/** The key of a node's failed-pod backoff: per DaemonSet generation, so an update starts over (Kubernetes' failedPodsBackoffKey). */
export function failedPodsBackoffKey(ds: DaemonSet, nodeName: string): string {
  return `${ds.metadata?.uid ?? ''}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;
}

/**
 * Kubernetes' manage: on each node, a daemon pod is made where one should run and none is; failed
 * pods are deleted (within their backoff), succeeded ones too; of several running pods the oldest
 * stays (with surge, one old and one new while the new one is not yet available); pods on a node
 * that no longer takes them are deleted. Pods never bound whose node is gone are deleted too: no
 * scheduler will bind them and the pod garbage collector does not look at unbound pods.
 */
export function planManage(input: ManageInput): ManagePlan {
  const plan: ManagePlan = { nodesNeedingPods: [], podsToDelete: [], events: [] };
  for (const node of input.nodes) planNode(input, node, plan);
  const names = new Set(input.nodes.map((n) => n.metadata?.name ?? ''));
  for (const [nodeName, pods] of input.pods) {
    if (names.has(nodeName)) continue;
    for (const pod of pods) if (!pod.spec?.nodeName && !isPodTerminating(pod)) plan.podsToDelete.push(pod);
  }
  return plan;
}

function retryAfter(plan: ManagePlan, ms: number): void {
  plan.retryAfterMs = plan.retryAfterMs === undefined ? ms : Math.min(plan.retryAfterMs, ms);
}

/** Kubernetes' podsShouldBeOnNode. */
function planNode({ ds, pods, hash, nowMs, backoff }: ManageInput, node: Node, plan: ManagePlan): void {
  const nodeName = node.metadata?.name ?? '';
  const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
  const daemonPods = pods.get(nodeName);
  if (shouldRun && daemonPods === undefined) {
    plan.nodesNeedingPods.push(nodeName);
    return;
  }
  if (!shouldContinueRunning) {
    for (const pod of daemonPods ?? []) if (!isPodTerminating(pod)) plan.podsToDelete.push(pod);
    return;
  }
  const namespace = ds.metadata?.namespace ?? '';
  const running: Pod[] = [];
  for (const pod of daemonPods ?? []) {
    if (isPodTerminating(pod)) continue;
    const podName = pod.metadata?.name ?? '';
    if (pod.status?.phase === 'Failed') {
      // The controller and a node agent that keeps refusing the pod would otherwise fight in a hot loop.
      const key = failedPodsBackoffKey(ds, nodeName);
      if (backoff.inBackoff(key, nowMs)) {
        retryAfter(plan, backoff.delayMs(key));
        continue;
      }
      backoff.next(key, nowMs);
      plan.events.push({
        type: 'Warning',
        reason: DaemonSetReasons.FailedDaemonPod,
        message: `Found failed daemon pod ${namespace}/${podName} on node ${nodeName}, will try to kill it`,
      });
      plan.podsToDelete.push(pod);
    } else if (pod.status?.phase === 'Succeeded') {
      plan.events.push({
        type: 'Normal',
        reason: DaemonSetReasons.SucceededDaemonPod,
        message: `Found succeeded daemon pod ${namespace}/${podName} on node ${nodeName}, will try to delete it`,
      });
      plan.podsToDelete.push(pod);
    } else {
      running.push(pod);
    }
  }
  running.sort(compareDaemonPods);
  if (!allowsSurge(ds)) {
    // A failed pod deleted leaves the node without one: the next sync makes it.
    for (const extra of running.slice(1)) plan.podsToDelete.push(extra);
    return;
  }
  if (running.length <= 1) {
    if (running.length === 0 && shouldRun) plan.nodesNeedingPods.push(nodeName);
    return;
  }
  // Surging: an old and a new pod may run together while the new one is not yet available; of the
  // rest, only the oldest of each kind is kept.
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    const isNew = pod.metadata?.labels?.[DAEMON_SET_REVISION_HASH_LABEL] === hash;
    if (isNew && oldestNew === undefined) oldestNew = pod;
    else if (!isNew && oldestOld === undefined) oldestOld = pod;
    else plan.podsToDelete.push(pod);
  }
  if (oldestNew && oldestOld) {
    if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec.minReadySeconds ?? 0, nowMs)) plan.podsToDelete.push(oldestOld);
  }
}
