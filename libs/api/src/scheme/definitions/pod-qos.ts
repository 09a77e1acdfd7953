import { quantityValue } from '../quantity';
import { isRecord, records } from './define-kind';

export type PodQosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** The resources QoS is computed from (Kubernetes' isSupportedQoSComputeResource). */
const QOS_RESOURCES = ['cpu', 'memory'] as const;

function positive(list: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (!isRecord(list)) return out;
  for (const name of QOS_RESOURCES) {
    const value = quantityValue(list[name]);
    if (value !== undefined && value > 0) out.set(name, value);
  }
  return out;
}

/**
 * Kubernetes' GetPodQOS (pkg/apis/core/helper/qos): BestEffort when no container asks for or is
 * limited in CPU or memory; Guaranteed when every container has CPU and memory limits and the
 * summed requests equal the summed limits; Burstable otherwise. Init containers count too.
 */
export function podQosClass(spec: unknown): PodQosClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const containers = isRecord(spec) ? [...records(spec.initContainers), ...records(spec.containers)] : [];
  for (const container of containers) {
    const resources = isRecord(container.resources) ? container.resources : {};
    for (const [name, value] of positive(resources.requests)) requests.set(name, (requests.get(name) ?? 0) + value);
    const own = positive(resources.limits);
    for (const [name, value] of own) limits.set(name, (limits.get(name) ?? 0) + value);
    if (!QOS_RESOURCES.every((name) => own.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, value] of requests) if (limits.get(name) !== value) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
