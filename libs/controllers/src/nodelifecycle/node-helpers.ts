import {
  LABEL_REGION,
  LABEL_REGION_LEGACY,
  LABEL_ZONE,
  LABEL_ZONE_LEGACY,
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  type Node,
  type NodeCondition,
  type Taint,
} from '@svc/api';

/** Nodes with this label are left out of the zones' health (Kubernetes' isNodeExcludedFromDisruptionChecks). */
export const LABEL_EXCLUDE_DISRUPTION = 'node.kubernetes.io/exclude-disruption';

export const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NODE_NOT_READY, effect: 'NoExecute' };
export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' };

export function nodeCondition(node: Node, type: string): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === type);
}

/** Kubernetes' zone key: region and zone from the topology labels (or their older names); empty when neither is set. */
export function zoneKeyOf(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const zone = labels[LABEL_ZONE] ?? labels[LABEL_ZONE_LEGACY] ?? '';
  const region = labels[LABEL_REGION] ?? labels[LABEL_REGION_LEGACY] ?? '';
  return zone === '' && region === '' ? '' : `${region}:\u0000:${zone}`;
}

export function excludedFromDisruption(node: Node): boolean {
  return LABEL_EXCLUDE_DISRUPTION in (node.metadata?.labels ?? {});
}

/** Same key and effect (Kubernetes' Taint.MatchTaint). */
export function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function hasTaintLike(taints: readonly Taint[] | undefined, template: Taint): boolean {
  return (taints ?? []).some((t) => sameTaint(t, template));
}

/** The NoSchedule taint each node condition maps to (Kubernetes' nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: TAINT_NODE_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_NODE_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NODE_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_NODE_PID_PRESSURE },
};

export const CONDITION_TAINT_KEYS: ReadonlySet<string> = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

/** The NoSchedule taints a node's conditions and `spec.unschedulable` call for. */
export function conditionNoScheduleTaints(node: Node, unschedulableKey: string): Taint[] {
  const taints: Taint[] = [];
  for (const condition of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[condition.type]?.[condition.status];
    if (key !== undefined) taints.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) taints.push({ key: unschedulableKey, effect: 'NoSchedule' });
  return taints;
}
