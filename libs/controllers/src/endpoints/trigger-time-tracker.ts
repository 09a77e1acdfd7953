import type { Pod, Service } from '@svc/api';
import { podReadyCondition } from '../common/pod-status';

/** The annotation kube-proxy reads to measure how long a change took to reach the network. */
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

interface ServiceState {
  /** Each selected pod's trigger time (its Ready condition's last transition), ms. */
  podTriggerTimes: Map<string, number>;
  serviceTriggerTime: number;
}

function parseTime(value: string | undefined): number {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}

/** Go's RFC3339Nano in UTC: fractional seconds only when there are some, without trailing zeros. */
export function formatTriggerTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/**
 * Kubernetes' TriggerTimeTracker: the time of the earliest change, since a service's last sync,
 * that its Endpoints now reflect. A pod's change is its Ready condition's transition; a service
 * seen for the first time counts from its creation. Zero when nothing known changed.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  compute(key: string, service: Service, pods: readonly Pod[]): number {
    const state = this.states.get(key);
    let earliest = 0;
    const podTriggerTimes = new Map<string, number>();
    for (const pod of pods) {
      const at = parseTime(podReadyCondition(pod)?.lastTransitionTime);
      if (at === 0) continue;
      const name = pod.metadata?.name ?? '';
      podTriggerTimes.set(name, at);
      if (at > (state?.podTriggerTimes.get(name) ?? 0) && (earliest === 0 || at < earliest)) earliest = at;
    }
    const serviceTriggerTime = parseTime(service.metadata?.creationTimestamp);
    if (serviceTriggerTime > (state?.serviceTriggerTime ?? 0) && (earliest === 0 || serviceTriggerTime < earliest)) earliest = serviceTriggerTime;
    this.states.set(key, { podTriggerTimes, serviceTriggerTime });
    return state ? earliest : serviceTriggerTime;
  }

  forget(key: string): void {
    this.states.delete(key);
  }
}
