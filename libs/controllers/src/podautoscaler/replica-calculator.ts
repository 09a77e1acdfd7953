import { quantityMilliValue, type Container, type Pod } from '@svc/api';
import { podReadyCondition } from '../common/pod-status';
import { metricUsageRatio, resourceUtilizationRatio, type PodMetricsInfo } from './resource-metrics';

/** What the calculator takes from the controller manager's flags. */
export interface ReplicaCalculatorSettings {
  /** `--horizontal-pod-autoscaler-tolerance`: a ratio this close to 1 changes nothing. */
  tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`, in ms. */
  cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`, in ms. */
  initialReadinessDelayMs: number;
}

interface PodGroups {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

const timeOf = (value: string | undefined | null): number | undefined => {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
};

/**
 * Kubernetes' replica calculator (pkg/controller/podautoscaler/replica_calculator.go): the replica
 * count a metric proposes from the pods' usage, leaving out pods being deleted or failed, treating
 * pending and (for CPU) not-yet-ready pods as unready and pods without metrics as missing, and then,
 * so as not to overreact, counting missing pods at 100% (scale down) or 0% (scale up) and unready pods
 * at 0% on a scale up; nothing changes within the tolerance or when those assumptions flip the
 * direction.
 */
export class ReplicaCalculator {
  constructor(
    private readonly settings: ReplicaCalculatorSettings,
    private readonly now: () => number,
  ) {}

  /** GetResourceReplicas: a target utilization (percent of request) of `resource`. */
  resourceReplicas(
    currentReplicas: number,
    targetUtilization: number,
    resource: string,
    pods: readonly Pod[],
    metrics: PodMetricsInfo,
    container: string,
  ): { replicas: number; utilization: number; rawUtilization: number } {
    if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
    const groups = this.groupPods(pods, metrics, resource);
    for (const name of [...groups.ignored, ...groups.unready]) metrics.delete(name);
    if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
    const requests = podRequests(pods, container, resource);
    const first = resourceUtilizationRatio(metrics, requests, targetUtilization);
    const keep = { utilization: first.utilization, rawUtilization: first.rawAverage };
    const usageRatio = first.ratio;
    const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1.0;
    if (!scaleUpWithUnready && groups.missing.size === 0) {
      if (Math.abs(1.0 - usageRatio) <= this.settings.tolerance) return { replicas: currentReplicas, ...keep };
      return { replicas: Math.ceil(usageRatio * groups.readyPodCount), ...keep };
    }
    if (groups.missing.size > 0) {
      // Scaling down, a pod without metrics counts as using all it requests (or the target, above 100%); scaling up, nothing.
      const fallback = Math.max(100, targetUtilization);
      for (const name of groups.missing) {
        const value = usageRatio < 1.0 ? Math.trunc(((requests.get(name) ?? 0) * fallback) / 100) : 0;
        if (usageRatio !== 1.0) metrics.set(name, { timestampMs: 0, windowMs: 0, value });
      }
    }
    if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
    const newRatio = resourceUtilizationRatio(metrics, requests, targetUtilization).ratio;
    return { replicas: this.settle(currentReplicas, usageRatio, newRatio, metrics.size), ...keep };
  }

  /** GetRawResourceReplicas: a target average usage (in thousandths) of `resource`. */
  rawResourceReplicas(
    currentReplicas: number,
    targetUsage: number,
    resource: string,
    pods: readonly Pod[],
    metrics: PodMetricsInfo,
  ): { replicas: number; usage: number } {
    if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
    const groups = this.groupPods(pods, metrics, resource);
    for (const name of [...groups.ignored, ...groups.unready]) metrics.delete(name);
    if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
    const { ratio: usageRatio, usage } = metricUsageRatio(metrics, targetUsage);
    const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1.0;
    if (!scaleUpWithUnready && groups.missing.size === 0) {
      if (Math.abs(1.0 - usageRatio) <= this.settings.tolerance) return { replicas: currentReplicas, usage };
      return { replicas: Math.ceil(usageRatio * groups.readyPodCount), usage };
    }
    if (groups.missing.size > 0 && usageRatio !== 1.0) {
      // Scaling down, a pod without metrics counts as using exactly the target; scaling up, nothing.
      for (const name of groups.missing) metrics.set(name, { timestampMs: 0, windowMs: 0, value: usageRatio < 1.0 ? targetUsage : 0 });
    }
    if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
    const newRatio = metricUsageRatio(metrics, targetUsage).ratio;
    return { replicas: this.settle(currentReplicas, usageRatio, newRatio, metrics.size), usage };
  }

  /** The count after the assumptions: unchanged within the tolerance, or when they would turn the direction. */
  private settle(currentReplicas: number, usageRatio: number, newRatio: number, counted: number): number {
    if (Math.abs(1.0 - newRatio) <= this.settings.tolerance || (usageRatio < 1.0 && newRatio > 1.0) || (usageRatio > 1.0 && newRatio < 1.0)) {
      return currentReplicas;
    }
    const replicas = Math.ceil(newRatio * counted);
    if ((newRatio < 1.0 && replicas > currentReplicas) || (newRatio > 1.0 && replicas < currentReplicas)) return currentReplicas;
    return replicas;
  }

  /** groupPods: ready, unready (pending, or CPU samples taken while starting), missing metrics, ignored. */
  private groupPods(pods: readonly Pod[], metrics: PodMetricsInfo, resource: string): PodGroups {
    const groups: PodGroups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
    const now = this.now();
    for (const pod of pods) {
      const name = pod.metadata?.name ?? '';
      const deleting = pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
      if (deleting || pod.status?.phase === 'Failed') {
        groups.ignored.add(name);
        continue;
      }
      if (pod.status?.phase === 'Pending') {
        groups.unready.add(name);
        continue;
      }
      const metric = metrics.get(name);
      if (metric === undefined) {
        groups.missing.add(name);
        continue;
      }
      if (resource === 'cpu') {
        const condition = podReadyCondition(pod);
        const start = timeOf(pod.status?.startTime);
        let unready: boolean;
        if (condition === undefined || start === undefined) unready = true;
        else {
          const transition = timeOf(condition.lastTransitionTime) ?? 0;
          if (start + this.settings.cpuInitializationPeriodMs > now) {
            // Still starting: a sample counts once the pod is ready and a whole window was measured since it became so.
            unready = condition.status === 'False' || metric.timestampMs < transition + metric.windowMs;
          } else {
            // Past the initialization period, a pod that is not ready and never was since its start is left out.
            unready = condition.status === 'False' && start + this.settings.initialReadinessDelayMs > transition;
          }
        }
        if (unready) {
          groups.unready.add(name);
          continue;
        }
      }
      groups.readyPodCount++;
    }
    return groups;
  }
}

/** calculatePodRequests: each pod's request of `resource` (thousandths), over its containers and restartable init containers. */
export function podRequests(pods: readonly Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    const containers: Container[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
    let sum = 0;
    for (const c of containers) {
      if (container !== '' && c.name !== container) continue;
      const request = quantityMilliValue(c.resources?.requests?.[resource]);
      if (request === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      sum += request;
    }
    requests.set(pod.metadata?.name ?? '', sum);
  }
  return requests;
}
