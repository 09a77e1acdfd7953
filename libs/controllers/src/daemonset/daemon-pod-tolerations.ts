import {
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  type PodSpec,
  type Toleration,
} from '@svc/api';

/**
 * The tolerations every daemon pod gets (Kubernetes' AddOrUpdateDaemonPodTolerations): a daemon
 * stays on a node that is not ready or unreachable (no tolerationSeconds: never evicted for it), and
 * is placed on nodes under disk, memory or PID pressure and on cordoned ones; a pod on the host's
 * network also on a node whose pod network is not up yet.
 */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const exists = (key: string, effect: 'NoExecute' | 'NoSchedule'): Toleration => ({ key, operator: 'Exists', effect });
  const tolerations = [
    exists(TAINT_NODE_NOT_READY, 'NoExecute'),
    exists(TAINT_NODE_UNREACHABLE, 'NoExecute'),
    exists(TAINT_NODE_DISK_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_MEMORY_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_PID_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_UNSCHEDULABLE, 'NoSchedule'),
  ];
  if (hostNetwork) tolerations.push(exists(TAINT_NODE_NETWORK_UNAVAILABLE, 'NoSchedule'));
  return tolerations;
}

/** Kubernetes' Toleration.MatchToleration: the same key, operator, value and effect (tolerationSeconds aside). */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '')
  );
}

/**
 * Kubernetes' AddOrUpdateTolerationInPodSpec, for each daemon toleration: a toleration of the
 * template that matches one (same key, operator, value and effect) is replaced by it, so that a
 * template's `tolerationSeconds` on not-ready cannot make the daemon evictable; the others are added.
 */
export function withDaemonPodTolerations(spec: PodSpec): PodSpec {
  let tolerations: Toleration[] = [...(spec.tolerations ?? [])];
  for (const daemon of daemonPodTolerations(spec.hostNetwork === true)) {
    let matched = false;
    tolerations = tolerations.map((t) => {
      if (!sameToleration(t, daemon)) return t;
      matched = true;
      return daemon;
    });
    if (!matched) tolerations.push(daemon);
  }
  return { ...spec, tolerations };
}
