import { isRecord } from '@svc/machinery';
import { quantityNanoValue } from '../../meta/quantity';
import { records } from './define-kind';

export type PodQosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** The resources QoS is computed from (Kubernetes' isSupportedQoSComputeResource). */
const QOS_RESOURCES = ['cpu', 'memory'] as const;

/** The positive CPU and memory amounts of a resource list, exactly (in billionths). */
function positive(list: unknown): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (!isRecord(list)) return out;
  for (const name of QOS_RESOURCES) {
    const value = quantityNanoValue(list[name]);
    if (value !== undefined && value > 0n) out.set(name, value);
  }
  return out;
}

/**
 * Kubernetes' ComputePodQOS (pkg/apis/core/helper/qos): BestEffort when no container asks for or is
 * limited in CPU or memory; Guaranteed when every container has CPU and memory limits and the
 * summed requests equal the summed limits; Burstable otherwise. Init containers count too. Amounts
 * are compared exactly, as Quantity.Cmp does: `700m` and `0.7` are equal.
 */
export function podQosClass(spec: unknown): PodQosClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const containers = isRecord(spec) ? [...records(spec.initContainers), ...records(spec.containers)] : [];
  for (const container of containers) {
    const resources = isRecord(container.resources) ? container.resources : {};
    for (const [name, value] of positive(resources.requests)) requests.set(name, (requests.get(name) ?? 0n) + value);
    const own = positive(resources.limits);
    for (const [name, value] of own) limits.set(name, (limits.get(name) ?? 0n) + value);
    if (!QOS_RESOURCES.every((name) => own.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, value] of requests) if (limits.get(name) !== value) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/**
 * Kubernetes' GetPodQOS: the class the API server set at creation (`status.qosClass`, which never
 * changes), computed from the spec only for a pod that never went through it (a static pod's file).
 */
export function podQosClassOf(pod: { spec?: unknown; status?: { qosClass?: string } }): PodQosClass {
  const stored = pod.status?.qosClass;
  return stored === 'Guaranteed' || stored === 'Burstable' || stored === 'BestEffort' ? stored : podQosClass(pod.spec);
}
