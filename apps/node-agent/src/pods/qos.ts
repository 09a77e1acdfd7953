import type { Container, Pod } from '@svc/api';
import { quantityMilliValue } from '@svc/api';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const COMPUTE = ['cpu', 'memory'] as const;

function isPositive(value: unknown): boolean {
  return (quantityMilliValue(value) ?? 0) > 0;
}

/** Kubernetes' QoS class of a pod, from its containers' (and init containers') requests and limits. */
export function qosClassOf(pod: Pod): QosClass {
  const containers: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  let anyRequestOrLimit = false;
  let guaranteed = true;
  for (const container of containers) {
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    for (const resource of COMPUTE) {
      const request = requests[resource];
      const limit = limits[resource];
      if (isPositive(request) || isPositive(limit)) anyRequestOrLimit = true;
      if (!isPositive(limit)) guaranteed = false;
      else if (request !== undefined && quantityMilliValue(request) !== quantityMilliValue(limit)) guaranteed = false;
    }
  }
  if (!anyRequestOrLimit) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
