import type { Pod } from '@svc/api';
import { getControllerOf } from '@svc/runtime';
import { requiredAffinityTerms, requiredAntiAffinityTerms, type AffinityTerm } from '../framework/affinity';
import { podNonZeroRequests, podRequests, type Resources } from './resources';

/** A host port a pod claims on its node. */
export interface HostPort {
  protocol: string;
  /** `0.0.0.0` when the pod names no host IP. */
  ip: string;
  port: number;
}

/** A pod with what scheduling reads of it worked out once (Kubernetes' framework.PodInfo). */
export interface PodInfo {
  pod: Pod;
  key: string;
  requests: Resources;
  nonZero: { milliCpu: number; memory: number };
  hostPorts: HostPort[];
  /** The uid of its controller owner (a ReplicaSet, say), which spreading groups by. */
  ownerUid: string | undefined;
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
}

/** The pod's priority, 0 when it has none (Kubernetes' corev1helpers.PodPriority). */
export function podPriority(pod: Pod): number {
  return typeof pod.spec.priority === 'number' ? pod.spec.priority : 0;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

function hostPortsOf(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])]) {
    for (const p of c.ports ?? []) {
      if (typeof p.hostPort !== 'number' || p.hostPort <= 0) continue;
      out.push({ protocol: p.protocol ?? 'TCP', ip: p.hostIP || '0.0.0.0', port: p.hostPort });
    }
  }
  return out;
}

export function podInfoOf(pod: Pod): PodInfo {
  return {
    pod,
    key: podKey(pod),
    requests: podRequests(pod),
    nonZero: podNonZeroRequests(pod),
    hostPorts: hostPortsOf(pod),
    ownerUid: getControllerOf(pod)?.uid,
    requiredAffinity: requiredAffinityTerms(pod),
    requiredAntiAffinity: requiredAntiAffinityTerms(pod),
  };
}
