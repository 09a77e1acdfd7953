import type { Pod } from '@svc/api';
import { isPodTerminating } from '../common/pod-status';
import { targetNodeName } from './daemon-pod-placement';

/** A DaemonSet's pods by the node each is bound to or meant for. */
export type PodsByNode = Map<string, Pod[]>;

export function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * Kubernetes' getNodesToDaemonPods: the pods grouped by target node. A finished pod that is being
 * deleted is left out (the node agent or the pod garbage collector is removing it), unless
 * `includeDeletedTerminal`; a pod naming no node is left out.
 */
export function podsByNode(pods: readonly Pod[], includeDeletedTerminal = false): PodsByNode {
  const byNode: PodsByNode = new Map();
  for (const pod of pods) {
    if (!includeDeletedTerminal && isPodTerminal(pod) && isPodTerminating(pod)) continue;
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    const list = byNode.get(node);
    if (list) list.push(pod);
    else byNode.set(node, [pod]);
  }
  return byNode;
}

/** Kubernetes' podByCreationTimestampAndPhase: bound pods first, then the oldest, then by name. */
export function compareDaemonPods(a: Pod, b: Pod): number {
  const aBound = !!a.spec?.nodeName;
  const bBound = !!b.spec?.nodeName;
  if (aBound !== bBound) return aBound ? -1 : 1;
  const at = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (at !== bt) return at - bt;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}
