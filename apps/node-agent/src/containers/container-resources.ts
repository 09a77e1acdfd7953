import type { Container, Pod } from '@svc/api';
import { podQosClassOf, quantityMilliValue, quantityValue, type PodQosClass } from '@svc/api';
import type { LinuxContainerResources } from '@svc/cri';

const MIN_SHARES = 2;
const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
/** The CFS period runc uses unless told otherwise, in microseconds. */
export const CFS_PERIOD_US = 100_000;
const MIN_QUOTA_US = 1_000;

/** OOM scores by QoS class, as Kubernetes sets them (the runtime may clamp them to its own). */
const GUARANTEED_OOM_SCORE = -997;
const BEST_EFFORT_OOM_SCORE = 1000;

export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return MIN_SHARES;
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((milliCpu * SHARES_PER_CPU) / 1000)));
}

export function milliCpuToQuota(milliCpu: number, periodUs = CFS_PERIOD_US): number {
  if (milliCpu === 0) return 0;
  return Math.max(MIN_QUOTA_US, Math.floor((milliCpu * periodUs) / 1000));
}

/** Kubernetes' per-container OOM score for a Burstable pod: the larger its memory request, the safer. */
function burstableOomScore(memoryRequest: number, memoryCapacity: number): number {
  const score = 1000 - Math.floor((1000 * memoryRequest) / Math.max(1, memoryCapacity));
  return Math.min(999, Math.max(2, score));
}

export interface ResourceOptions {
  /** Enforce CPU limits with a CFS quota (`cpuCFSQuota`). */
  cfsQuota: boolean;
  /** The node's memory capacity in bytes (for Burstable OOM scores). */
  memoryCapacityBytes: number;
}

/** A container's requests and limits as the runtime's cgroup settings. */
export function linuxResources(pod: Pod, container: Container, options: ResourceOptions, qos: PodQosClass = podQosClassOf(pod)): LinuxContainerResources {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  const cpuRequest = quantityMilliValue(requests.cpu ?? limits.cpu) ?? 0;
  const cpuLimit = quantityMilliValue(limits.cpu) ?? 0;
  const memoryLimit = quantityValue(limits.memory) ?? 0;
  const memoryRequest = quantityValue(requests.memory ?? limits.memory) ?? 0;
  const resources: LinuxContainerResources = {
    cpuShares: milliCpuToShares(cpuRequest),
    oomScoreAdj:
      qos === 'Guaranteed'
        ? GUARANTEED_OOM_SCORE
        : qos === 'BestEffort'
          ? BEST_EFFORT_OOM_SCORE
          : burstableOomScore(memoryRequest, options.memoryCapacityBytes),
  };
  if (memoryLimit > 0) resources.memoryLimitInBytes = memoryLimit;
  if (options.cfsQuota && cpuLimit > 0) {
    resources.cpuPeriod = CFS_PERIOD_US;
    resources.cpuQuota = milliCpuToQuota(cpuLimit);
  }
  return resources;
}

/**
 * The pod's cgroup below the QoS hierarchy (`cgroupsPerQOS`): `<root>/kubepods[/burstable|/besteffort]/pod<uid>`,
 * by the class the API server stored at creation, so the cgroup and `status.qosClass` always agree.
 */
export function podCgroupParent(pod: Pod, cgroupRoot: string, perQos: boolean): string {
  if (!perQos) return '';
  return `${qosCgroup(cgroupRoot, podQosClassOf(pod))}/pod${pod.metadata?.uid ?? ''}`;
}

/** The cgroup the pods of a QoS class sit below: `<cgroupRoot>/kubepods`, and `/burstable` or `/besteffort` below it. */
export function qosCgroup(cgroupRoot: string, qos: PodQosClass): string {
  const root = cgroupRoot === '' || cgroupRoot === '/' ? '' : cgroupRoot.replace(/\/$/, '');
  return `${root}/kubepods${qos === 'Guaranteed' ? '' : `/${qos.toLowerCase()}`}`;
}
