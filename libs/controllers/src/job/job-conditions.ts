import { metaTime } from '@svc/machinery';
import type { ConditionStatus, Job, JobCondition } from '@svc/api';

/** The reasons Kubernetes gives a Job's conditions (k8s.io/api/batch/v1), which clients match. */
export const JobReasons = {
  PodFailurePolicy: 'PodFailurePolicy',
  BackoffLimitExceeded: 'BackoffLimitExceeded',
  DeadlineExceeded: 'DeadlineExceeded',
  MaxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  FailedIndexes: 'FailedIndexes',
  SuccessPolicy: 'SuccessPolicy',
  CompletionsReached: 'CompletionsReached',
} as const;

export function newJobCondition(type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): JobCondition {
  const at = metaTime(nowMs);
  return { type, status, lastProbeTime: at, lastTransitionTime: at, reason, message };
}

export function findCondition(conditions: readonly JobCondition[] | undefined, type: string): JobCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

function isTrue(job: Job, type: string): boolean {
  return findCondition(job.status?.conditions, type)?.status === 'True';
}

/** Finished: Complete or Failed is True; nothing more is done for it. */
export function isJobFinished(job: Job): boolean {
  return isTrue(job, 'Complete') || isTrue(job, 'Failed');
}

export function hasSuccessCriteriaMet(job: Job): JobCondition | undefined {
  const condition = findCondition(job.status?.conditions, 'SuccessCriteriaMet');
  return condition?.status === 'True' ? condition : undefined;
}

/**
 * Kubernetes' ensureJobConditionStatus: sets the condition of `type` (a new one only when its status
 * is not False: going from nothing to False means nothing). The list is changed in place; true when it changed.
 */
export function ensureJobCondition(conditions: JobCondition[], type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): boolean {
  const index = conditions.findIndex((c) => c.type === type);
  if (index >= 0) {
    const current = conditions[index];
    if (current.status === status && current.reason === reason && current.message === message) return false;
    conditions[index] = newJobCondition(type, status, reason, message, nowMs);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newJobCondition(type, status, reason, message, nowMs));
  return true;
}
