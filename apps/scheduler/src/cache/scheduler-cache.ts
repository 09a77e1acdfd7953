import type { Node, Pod } from '@svc/api';
import { NodeInfo } from './node-info';
import { podInfoOf, podKey, type PodInfo } from './pod-info';

/** How long an assumed pod whose binding finished may wait for the informer to show it bound (Kubernetes' 15 minutes, less here: bindings are confirmed in seconds). */
export const ASSUMED_POD_TTL_MS = 5 * 60_000;

interface Assumed {
  nodeName: string;
  /** Set once the binding answered: after it, an unconfirmed assumption expires. */
  expiresAt?: number;
}

/**
 * What the scheduler knows of the cluster (Kubernetes' scheduler cache): every node, and every pod on
 * a node, bound (from the informer) or assumed (chosen, binding under way), so that the next
 * decision already counts the last one.
 */
export class SchedulerCache {
  private readonly infos = new Map<string, NodeInfo>();
  private readonly order: NodeInfo[] = [];
  private readonly podNode = new Map<string, string>();
  private readonly assumed = new Map<string, Assumed>();
  private readonly antiAffinityPods = new Set<PodInfo>();

  constructor(private readonly now: () => number = Date.now) {}

  // ---- nodes ----

  addNode(node: Node): NodeInfo {
    const name = node.metadata?.name ?? '';
    const info = this.infoOf(name);
    if (info.node === undefined) this.order.push(info);
    info.setNode(node);
    return info;
  }

  updateNode(node: Node): NodeInfo {
    return this.addNode(node);
  }

  removeNode(name: string): void {
    const info = this.infos.get(name);
    if (info?.node === undefined) return;
    info.node = undefined;
    const at = this.order.indexOf(info);
    if (at >= 0) this.order.splice(at, 1);
    // Pods still bound to it keep their place until they go, as in Kubernetes.
    if (info.pods.size === 0) this.infos.delete(name);
  }

  /** Nodes with a Node object, in a stable order (the scheduler's round robin walks it). */
  nodes(): readonly NodeInfo[] {
    return this.order;
  }

  node(name: string): NodeInfo | undefined {
    return this.infos.get(name);
  }

  // ---- pods ----

  /** A pod the informer shows on a node: confirms an assumption, or places it. */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    this.assumed.delete(key);
    this.place(podInfoOf(pod), pod.spec.nodeName ?? '');
  }

  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    const key = podKey(pod);
    this.assumed.delete(key);
    this.unplace(key);
  }

  /** Counts `info` on `nodeName` before the binding is confirmed. */
  assumePod(info: PodInfo, nodeName: string): void {
    const pod: Pod = { ...info.pod, spec: { ...info.pod.spec, nodeName } };
    this.place({ ...info, pod }, nodeName);
    this.assumed.set(info.key, { nodeName });
  }

  /** The binding answered: the assumption now waits for the informer, at most the TTL. */
  finishBinding(key: string): void {
    const a = this.assumed.get(key);
    if (a !== undefined) a.expiresAt = this.now() + ASSUMED_POD_TTL_MS;
  }

  /** The binding failed: the pod is no longer counted where it was assumed. */
  forgetPod(key: string): void {
    if (!this.assumed.delete(key)) return;
    this.unplace(key);
  }

  isAssumed(key: string): boolean {
    return this.assumed.has(key);
  }

  /** Drops assumptions the informer never confirmed. */
  expireAssumed(): number {
    const now = this.now();
    let expired = 0;
    for (const [key, a] of this.assumed) {
      if (a.expiresAt === undefined || a.expiresAt > now) continue;
      this.assumed.delete(key);
      this.unplace(key);
      expired++;
    }
    return expired;
  }

  /** Placed pods (bound and assumed) with required anti-affinity terms. */
  podsWithRequiredAntiAffinity(): ReadonlySet<PodInfo> {
    return this.antiAffinityPods;
  }

  podCount(): number {
    return this.podNode.size;
  }

  private infoOf(name: string): NodeInfo {
    let info = this.infos.get(name);
    if (info === undefined) {
      info = new NodeInfo(name);
      this.infos.set(name, info);
    }
    return info;
  }

  private place(info: PodInfo, nodeName: string): void {
    this.unplace(info.key);
    this.infoOf(nodeName).addPod(info);
    this.podNode.set(info.key, nodeName);
    if (info.requiredAntiAffinity.length > 0) this.antiAffinityPods.add(info);
  }

  private unplace(key: string): void {
    const nodeName = this.podNode.get(key);
    if (nodeName === undefined) return;
    this.podNode.delete(key);
    const node = this.infos.get(nodeName);
    const removed = node?.removePod(key);
    if (removed !== undefined) this.antiAffinityPods.delete(removed);
    if (node !== undefined && node.node === undefined && node.pods.size === 0) this.infos.delete(nodeName);
  }
}
