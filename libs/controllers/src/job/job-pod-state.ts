import { JOB_TRACKING_FINALIZER, type Job, type Pod } from '@svc/api';
import { isPodTerminating } from '../common/pod-status';

export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) ?? false;
}

/** Replaced only once Failed (podReplacementPolicy Failed, which a pod failure policy implies). */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec.podReplacementPolicy === 'Failed' || job.spec.podFailurePolicy !== undefined;
}

/**
 * Failed as the Job counts it (Kubernetes' isPodFailed): phase Failed, or, unless the Job replaces
 * only failed pods, being deleted before it succeeded (a pod removed before it could end counts).
 */
export function isPodFailedForJob(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return isPodTerminating(pod) && pod.status?.phase !== 'Succeeded';
}

/** Being stopped and not yet ended (Kubernetes' CountTerminatingPods). */
export function isPodStopping(pod: Pod): boolean {
  return isPodTerminating(pod) && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
}
