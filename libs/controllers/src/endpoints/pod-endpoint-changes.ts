import type { Pod } from '@svc/api';
import type { Predicate } from '@svc/runtime';
import { isPodReady } from '../common/pod-status';

function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => a?.[k] === b?.[k]);
}

function ips(pod: Pod): string {
  return [pod.status?.podIP ?? '', ...(pod.status?.podIPs ?? []).map((p) => p.ip)].join(',');
}

/**
 * Whether a pod update can change any Endpoints (Kubernetes' podEndpointsChanged, plus the phase
 * and node, which decide membership here too): labels, hostname or subdomain, deletion, readiness,
 * IPs. Status writes that change none of these (other conditions, container states) wake nothing,
 * which matters with a thousand pods behind one service.
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): boolean {
  if (oldPod.metadata?.resourceVersion !== undefined && oldPod.metadata.resourceVersion === newPod.metadata?.resourceVersion) return false;
  return (
    !sameRecord(oldPod.metadata?.labels, newPod.metadata?.labels) ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain ||
    oldPod.metadata?.deletionTimestamp !== newPod.metadata?.deletionTimestamp ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    ips(oldPod) !== ips(newPod) ||
    oldPod.status?.phase !== newPod.status?.phase ||
    oldPod.spec?.nodeName !== newPod.spec?.nodeName
  );
}

/** Pod events an Endpoints may depend on: every create and delete, updates that {@link podEndpointsChanged}. */
export const PodEndpointsChanged: Predicate<Pod> = (event) => event.type !== 'update' || podEndpointsChanged(event.oldObject, event.object);
