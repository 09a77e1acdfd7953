import { findUntoleratedTaint, isDoNotScheduleTaint, RequiredNodeAffinity, type DaemonSet, type Node, type Pod } from '@svc/api';
import { withDaemonPodTolerations } from './daemon-pod-tolerations';

/** Whether a node is one for the DaemonSet (Kubernetes' NodeShouldRunDaemonPod). */
export interface NodeVerdict {
  /** A daemon pod should be made on the node when it has none. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay (a NoSchedule taint keeps new pods off, not running ones). */
  shouldContinueRunning: boolean;
}

/**
 * The pod the DaemonSet would run on `nodeName`, as the predicates see it (Kubernetes' NewPod):
 * the template with the node named and the daemon tolerations added.
 */
export function simulatedDaemonPod(ds: DaemonSet, nodeName: string): Pod {
  const template = ds.spec.template;
  return {
    metadata: { ...template.metadata, namespace: ds.metadata?.namespace },
    spec: { ...withDaemonPodTolerations(template.spec ?? { containers: [] }), nodeName },
  };
}

/**
 * Kubernetes' NodeShouldRunDaemonPod: a template naming another node, a nodeSelector or required
 * node affinity the node does not meet, rule it out altogether; a NoSchedule or NoExecute taint the
 * pod does not tolerate keeps new daemon pods off, and only an untolerated NoExecute taint evicts
 * the one already there.
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): NodeVerdict {
  const nodeName = node.metadata?.name ?? '';
  const templateNode = ds.spec.template.spec?.nodeName;
  if (templateNode && templateNode !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const pod = simulatedDaemonPod(ds, nodeName);
  if (!RequiredNodeAffinity.of(pod).matches(node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints;
  const tolerations = pod.spec.tolerations;
  if (findUntoleratedTaint(taints, tolerations, isDoNotScheduleTaint) === undefined) return { shouldRun: true, shouldContinueRunning: true };
  const evicting = findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute');
  return { shouldRun: false, shouldContinueRunning: evicting === undefined };
}
