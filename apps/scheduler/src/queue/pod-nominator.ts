import type { Pod } from '@svc/api';
import { podInfoOf, podKey, type PodInfo } from '../cache/pod-info';
import type { NominatedPods } from '../framework/plugin';

/**
 * The pending pods nominated to a node, by preemption (Kubernetes' nominator): filters count them on
 * that node for pods of their priority or below, so the room their victims leave is kept for them.
 * A nomination comes from `status.nominatedNodeName`, or from the scheduler itself before its status
 * write comes back; it ends when the pod is bound or deleted.
 */
export class PodNominator implements NominatedPods {
  private readonly byNode = new Map<string, Map<string, PodInfo>>();
  private readonly nodeOf = new Map<string, string>();

  forNode(nodeName: string): readonly PodInfo[] {
    const pods = this.byNode.get(nodeName);
    return pods === undefined ? [] : [...pods.values()];
  }

  nominatedNode(key: string): string | undefined {
    return this.nodeOf.get(key);
  }

  /** The scheduler nominated the pod to `nodeName` (empty: took its nomination away). */
  nominate(info: PodInfo, nodeName: string): void {
    this.delete(info.key);
    if (nodeName === '' || info.pod.spec.nodeName) return;
    let pods = this.byNode.get(nodeName);
    if (pods === undefined) {
      pods = new Map<string, PodInfo>();
      this.byNode.set(nodeName, pods);
    }
    pods.set(info.key, info);
    this.nodeOf.set(info.key, nodeName);
  }

  /** A pending pod added or changed: its status names its nomination, or an in-memory one waits for the status write. */
  update(oldPod: Pod | undefined, newPod: Pod, info: PodInfo = podInfoOf(newPod)): void {
    const key = podKey(newPod);
    let nodeName = newPod.status?.nominatedNodeName ?? '';
    // A change that neither adds, changes nor removes the nomination keeps the one the scheduler made.
    if (nodeName === '' && !oldPod?.status?.nominatedNodeName) nodeName = this.nodeOf.get(key) ?? '';
    this.nominate(info, nodeName);
  }

  delete(key: string): void {
    const nodeName = this.nodeOf.get(key);
    if (nodeName === undefined) return;
    this.nodeOf.delete(key);
    const pods = this.byNode.get(nodeName);
    pods?.delete(key);
    if (pods?.size === 0) this.byNode.delete(nodeName);
  }
}
