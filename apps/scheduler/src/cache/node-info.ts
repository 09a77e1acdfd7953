import type { Node } from '@svc/api';
import { quantityValue } from '@svc/api';
import { podPriority, type HostPort, type PodInfo } from './pod-info';
import { addResources, emptyResources, resourcesOf, type Resources } from './resources';

/**
 * A node with the pods placed on it, bound or assumed (Kubernetes' framework.NodeInfo): what they
 * request in total, the host ports they hold, how many each controller owner has here, and which of
 * them carry required anti-affinity terms.
 */
export class NodeInfo {
  node: Node | undefined;
  allocatable: Resources = emptyResources();
  allowedPods = 0;
  readonly requested: Resources = emptyResources();
  readonly nonZeroRequested = { milliCpu: 0, memory: 0 };
  readonly pods = new Map<string, PodInfo>();
  readonly ownerCounts = new Map<string, number>();
  readonly podsWithAntiAffinity = new Set<PodInfo>();
  /** How many pods of each priority are here: preemption asks whether any is below a pod's without walking them. */
  readonly priorityCounts = new Map<number, number>();
  private readonly usedPorts = new Map<string, number>();

  constructor(readonly name: string) {}

  setNode(node: Node): void {
    this.node = node;
    const allocatable = node.status?.allocatable as Record<string, unknown> | undefined;
    this.allocatable = resourcesOf(allocatable);
    this.allowedPods = Math.max(0, quantityValue(allocatable?.pods) ?? 0);
  }

  /** A copy to simulate on (nominated pods added, preemption victims removed) without touching the cache. */
  clone(): NodeInfo {
    const copy = new NodeInfo(this.name);
    if (this.node !== undefined) copy.setNode(this.node);
    for (const info of this.pods.values()) copy.addPod(info);
    return copy;
  }

  addPod(info: PodInfo): void {
    this.removePod(info.key);
    this.pods.set(info.key, info);
    this.account(info, 1);
  }

  removePod(key: string): PodInfo | undefined {
    const info = this.pods.get(key);
    if (info === undefined) return undefined;
    this.pods.delete(key);
    this.account(info, -1);
    return info;
  }

  /** Kubernetes' HostPortInfo.CheckConflict: the same protocol and port on the same IP, or where either side is 0.0.0.0. */
  /** Whether a pod of lower priority than `priority` is here. */
  hasPodBelow(priority: number): boolean {
    for (const p of this.priorityCounts.keys()) if (p < priority) return true;
    return false;
  }

  portConflict(port: HostPort): boolean {
    if (port.ip === '0.0.0.0') {
      for (const [key, count] of this.usedPorts) if (count > 0 && key.startsWith(`${port.protocol}/`) && key.endsWith(`/${port.port}`)) return true;
      return false;
    }
    return (this.usedPorts.get(portKey(port)) ?? 0) > 0 || (this.usedPorts.get(portKey({ ...port, ip: '0.0.0.0' })) ?? 0) > 0;
  }

  private account(info: PodInfo, sign: 1 | -1): void {
    addResources(this.requested, info.requests, sign);
    this.nonZeroRequested.milliCpu += sign * info.nonZero.milliCpu;
    this.nonZeroRequested.memory += sign * info.nonZero.memory;
    for (const port of info.hostPorts) {
      const key = portKey(port);
      const count = (this.usedPorts.get(key) ?? 0) + sign;
      if (count > 0) this.usedPorts.set(key, count);
      else this.usedPorts.delete(key);
    }
    if (info.ownerUid !== undefined) {
      const count = (this.ownerCounts.get(info.ownerUid) ?? 0) + sign;
      if (count > 0) this.ownerCounts.set(info.ownerUid, count);
      else this.ownerCounts.delete(info.ownerUid);
    }
    const priority = podPriority(info.pod);
    const atPriority = (this.priorityCounts.get(priority) ?? 0) + sign;
    if (atPriority > 0) this.priorityCounts.set(priority, atPriority);
    else this.priorityCounts.delete(priority);
    if (info.requiredAntiAffinity.length > 0) {
      if (sign > 0) this.podsWithAntiAffinity.add(info);
      else this.podsWithAntiAffinity.delete(info);
    }
  }
}

function portKey(port: HostPort): string {
  return `${port.protocol}/${port.ip}/${port.port}`;
}
