import type { ControllerDescriptor } from '../controller-descriptor';
import { JobMetrics } from './job-metrics';
import { JobOrphanPodReconciler } from './job-orphan-pod-reconciler';
import { JOB_RECONCILER_NAME, JobReconciler } from './job-reconciler';

export { JobReconciler } from './job-reconciler';

/** Kubernetes' default workers of the job controller (`--concurrent-job-syncs`, which spec 2 does not name). */
export const JOB_SYNC_WORKERS = 5;

/**
 * Runs each Job's pods until enough succeed or the Job fails: completions, parallelism, Indexed
 * Jobs, backoff, deadlines, suspension, pod failure and success policies, exact counting through
 * the job-tracking finalizer.
 */
export const jobController: ControllerDescriptor = {
  name: 'job',
  reconcilers: [JobReconciler, JobOrphanPodReconciler],
  options: (_flags, manager) => [JobMetrics.of(manager.registry)],
  concurrency: () => ({ [JOB_RECONCILER_NAME]: JOB_SYNC_WORKERS, 'job-orphan-pods': 1 }),
};
