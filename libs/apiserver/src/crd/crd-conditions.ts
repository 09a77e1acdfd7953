import { metaTime } from '@svc/machinery';
import type { ConditionStatus } from '@svc/machinery';

/** The condition types and reasons of a CustomResourceDefinition's status, Kubernetes' own. */

export const CRD_FINALIZER = 'customresourcecleanup.apiextensions.svc.io';

export interface CrdCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const ESTABLISHED = 'Established';
export const NAMES_ACCEPTED = 'NamesAccepted';
export const TERMINATING = 'Terminating';

export function findCondition(conditions: readonly CrdCondition[] | undefined, type: string): CrdCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly CrdCondition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * `conditions` with `next` set: its transition time moves only when its status changes, and a
 * condition that did not exist before is appended after the others.
 */
export function setCondition(conditions: readonly CrdCondition[] | undefined, next: Omit<CrdCondition, 'lastTransitionTime'>, now: Date): CrdCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = previous && previous.status === next.status && previous.lastTransitionTime ? previous.lastTransitionTime : metaTime(now);
  const condition: CrdCondition = { type: next.type, status: next.status, lastTransitionTime, reason: next.reason, message: next.message };
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  return list;
}
