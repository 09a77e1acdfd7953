import type { DaemonSet, Node, Pod } from '@svc/api';
import { isPodAvailable, isPodTerminating } from '../common/pod-status';
import type { PodsByNode } from './daemon-pods-by-node';
import { isPodUpdated, templateGeneration } from './daemon-pod-revision';
import { nodeShouldRunDaemonPod } from './node-should-run';
import { rollingUpdateBounds } from './rolling-update-bounds';

export interface RollingUpdateInput {
  ds: DaemonSet;
  nodes: readonly Node[];
  pods: PodsByNode;
  hash: string;
  nowMs: number;
}

export interface RollingUpdatePlan {
  /** Old pods to delete (the manage step then makes their replacements, or already has). */
  podsToDelete: Pod[];
  /** Nodes that get a new pod beside their old one (surge). */
  nodesNeedingPods: string[];
}

/**
 * Kubernetes' findUpdatedPodsOnNode: the node's one new and one old pod (not being deleted); not ok
 * when it has more of either, which the manage step prunes first.
 */
export function updatedPodsOnNode(ds: DaemonSet, pods: readonly Pod[], hash: string): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  const generation = templateGeneration(ds);
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (isPodTerminating(pod)) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

/**
 * Kubernetes' rollingUpdate, as a plan. Without surge, old pods are deleted while fewer than
 * maxUnavailable nodes lack an available pod (an unavailable old pod is always replaced, and counts);
 * the manage step makes the new pods. With surge, a new pod is started beside each old one, up to
 * maxSurge at once (at once where the old one is unavailable), and the old pod goes when the new one
 * is available. Pods being deleted do not count as unavailable, so an update progresses while nodes are down.
 */
export function planRollingUpdate({ ds, nodes, pods, hash, nowMs }: RollingUpdateInput): RollingUpdatePlan {
  const minReadySeconds = ds.spec.minReadySeconds ?? 0;
  const available = (pod: Pod) => isPodAvailable(pod, minReadySeconds, nowMs);
  // Every node that should run a pod is considered, with or without one (updatedDesiredNodeCounts).
  const byNode = new Map(pods);
  const nodesByName = new Map<string, Node>();
  let desired = 0;
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    nodesByName.set(name, node);
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
    desired++;
    if (!byNode.has(name)) byNode.set(name, []);
  }
  const { maxSurge, maxUnavailable } = rollingUpdateBounds(ds, desired);
  const shouldRun = (nodeName: string) => {
    const node = nodesByName.get(nodeName);
    return node !== undefined && nodeShouldRunDaemonPod(node, ds).shouldRun;
  };

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replacements: Pod[] = [];
    const candidates: Pod[] = [];
    for (const nodePods of byNode.values()) {
      const { newPod, oldPod, ok } = updatedPodsOnNode(ds, nodePods, hash);
      if (!ok || (!oldPod && !newPod) || (oldPod && newPod)) {
        // The manage step makes or prunes pods here first: the node counts as unavailable.
        numUnavailable++;
      } else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod && !available(oldPod)) {
        replacements.push(oldPod);
        numUnavailable++;
      } else if (oldPod && numUnavailable < maxUnavailable) {
        candidates.push(oldPod);
      }
    }
    const remaining = Math.min(Math.max(maxUnavailable - numUnavailable, 0), candidates.length);
    return { podsToDelete: [...replacements, ...candidates.slice(0, remaining)], nodesNeedingPods: [] };
  }

  const podsToDelete: Pod[] = [];
  const shouldNotRunToDelete: Pod[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, nodePods] of byNode) {
    const { newPod, oldPod, ok } = updatedPodsOnNode(ds, nodePods, hash);
    if (!ok) {
      numSurge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod ? available(newPod) : false) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRun(nodeName)) podsToDelete.push(oldPod);
        else allowedNodes.push(nodeName);
      } else if (!shouldRun(nodeName)) {
        shouldNotRunToDelete.push(oldPod);
      } else if (numSurge < maxSurge) {
        candidateNodes.push(nodeName);
      }
      continue;
    }
    // Surged already: the old pod goes once the new one is available.
    if (!available(newPod)) numSurge++;
    else podsToDelete.push(oldPod);
  }
  // With surge the owner expects full availability: a pod on a node that no longer takes it goes
  // only as pods elsewhere become available beyond the desired number.
  const deletable = Math.min(Math.max(numAvailable - desired, 0), shouldNotRunToDelete.length);
  podsToDelete.push(...shouldNotRunToDelete.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNodes.length);
  return { podsToDelete, nodesNeedingPods: [...allowedNodes, ...candidateNodes.slice(0, remainingSurge)] };
}
