import { metaTime } from '@svc/machinery';
import type { TArray } from '@sinclair/typebox';
import { ConditionSchema, ListMap, type Condition, type ConditionStatus } from '@svc/api';

/** A condition to set: `lastTransitionTime` is filled in when the status changes (or the type is new). */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  /** The `metadata.generation` the condition was worked out for. */
  observedGeneration?: number;
  /** When the status changed; now when absent. */
  lastTransitionTime?: string;
}

/**
 * The schema of a `status.conditions` list for `defineResource`: metav1.Condition items, a list-map
 * keyed by `type` (`x-kubernetes-list-type: map`), as Kubernetes' own kinds and kubebuilder's
 * `[]metav1.Condition` declare it, so that server-side apply merges conditions by type.
 */
export function Conditions(): TArray<typeof ConditionSchema> {
  return ListMap(ConditionSchema, ['type'], { maxItems: 32 });
}

/** A time as metav1.Time writes it: RFC 3339 at whole seconds. */
export function conditionTime(at: Date = new Date()): string {
  return metaTime(at);
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is there with `status`. */
export function hasConditionStatus(conditions: readonly Condition[] | undefined, type: string, status: ConditionStatus): boolean {
  return findCondition(conditions, type)?.status === status;
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return hasConditionStatus(conditions, type, 'True');
}

export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return hasConditionStatus(conditions, type, 'False');
}

/**
 * `conditions` with `condition` set, by Kubernetes' rules (apimachinery's `meta.SetStatusCondition`):
 * a new type is added with `lastTransitionTime` now (or as given); an existing one keeps its
 * `lastTransitionTime` unless its status changes, and takes the new reason, message and
 * observedGeneration. The list given is never changed (cached objects are frozen): when nothing
 * changes the same list comes back, so `next !== previous` says whether there is anything to write.
 */
export function setCondition(conditions: readonly Condition[] | undefined, condition: ConditionInput, now: Date = new Date()): Condition[] {
  const list = conditions ?? [];
  const index = list.findIndex((c) => c.type === condition.type);
  const existing = index < 0 ? undefined : list[index];
  const message = condition.message ?? '';
  if (!existing) {
    const added: Condition = {
      type: condition.type,
      status: condition.status,
      ...(condition.observedGeneration !== undefined ? { observedGeneration: condition.observedGeneration } : {}),
      lastTransitionTime: condition.lastTransitionTime ?? conditionTime(now),
      reason: condition.reason,
      message,
    };
    return [...list, added];
  }
  const transitioned = existing.status !== condition.status;
  if (!transitioned && existing.reason === condition.reason && existing.message === message && existing.observedGeneration === condition.observedGeneration) {
    return conditions as Condition[];
  }
  const updated: Condition = {
    type: existing.type,
    status: condition.status,
    ...(condition.observedGeneration !== undefined ? { observedGeneration: condition.observedGeneration } : {}),
    lastTransitionTime: transitioned ? (condition.lastTransitionTime ?? conditionTime(now)) : existing.lastTransitionTime,
    reason: condition.reason,
    message,
  };
  return list.map((c, i) => (i === index ? updated : c));
}

/** `conditions` without the condition of `type` (the same list when there is none). */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  const list = conditions ?? [];
  return list.some((c) => c.type === type) ? list.filter((c) => c.type !== type) : (list as Condition[]);
}

/** What the generation helpers read: every object with metadata and a status of this shape fits. */
export interface GenerationObject {
  metadata?: { generation?: number };
  status?: { observedGeneration?: number; conditions?: readonly Condition[] } | undefined;
}

/**
 * Whether the status was written for the object's current spec: `status.observedGeneration` equals
 * `metadata.generation` (kstatus' rule, which `kubectl wait` and Argo CD follow). False while a spec
 * change has not been reconciled yet; true for an object without a generation (no spec to observe).
 */
export function isStatusCurrent(obj: GenerationObject): boolean {
  const generation = obj.metadata?.generation;
  return generation === undefined || obj.status?.observedGeneration === generation;
}

/**
 * Whether the condition of `type` holds for the object's current generation: it is True and its
 * `observedGeneration`, when it carries one, is the object's `metadata.generation`.
 */
export function isConditionCurrentAndTrue(obj: GenerationObject, type: string): boolean {
  const condition = findCondition(obj.status?.conditions, type);
  if (condition?.status !== 'True') return false;
  const generation = obj.metadata?.generation;
  return condition.observedGeneration === undefined || generation === undefined || condition.observedGeneration === generation;
}
