import { Counter, Histogram, type Registry } from 'prom-client';

/** Kubernetes' labels of a sync: what the sync did. */
export type JobSyncAction = 'reconciling' | 'tracking' | 'pods_created' | 'pods_deleted';
export type JobCompletionMode = 'Indexed' | 'NonIndexed';

const SUBSYSTEM = 'job_controller';

/**
 * The job controller's metrics under Kubernetes' names and labels (its stable families and the
 * beta count of pod failure policy actions), so that dashboards and alerts written for a
 * Kubernetes controller manager read ours. One set per registry.
 */
export class JobMetrics {
  private static readonly byRegistry = new WeakMap<Registry, JobMetrics>();
  readonly syncDuration: Histogram<'completion_mode' | 'result' | 'action'>;
  readonly syncs: Counter<'completion_mode' | 'result' | 'action'>;
  readonly finished: Counter<'completion_mode' | 'result' | 'reason'>;
  readonly podsFinished: Counter<'completion_mode' | 'result'>;
  readonly failurePolicyActions: Counter<'action'>;

  private constructor(registry: Registry) {
    const registers = [registry];
    this.syncDuration = new Histogram({
      name: `${SUBSYSTEM}_job_sync_duration_seconds`,
      help: 'The time it took to sync a job',
      labelNames: ['completion_mode', 'result', 'action'],
      // Kubernetes' ExponentialBuckets(0.004, 2, 15).
      buckets: Array.from({ length: 15 }, (_, i) => 0.004 * 2 ** i),
      registers,
    });
    this.syncs = new Counter({
      name: `${SUBSYSTEM}_job_syncs_total`,
      help: 'The number of job syncs',
      labelNames: ['completion_mode', 'result', 'action'],
      registers,
    });
    this.finished = new Counter({
      name: `${SUBSYSTEM}_jobs_finished_total`,
      help: 'The number of finished jobs',
      labelNames: ['completion_mode', 'result', 'reason'],
      registers,
    });
    this.podsFinished = new Counter({
      name: `${SUBSYSTEM}_job_pods_finished_total`,
      help: 'The number of finished Pods that are fully tracked',
      labelNames: ['completion_mode', 'result'],
      registers,
    });
    this.failurePolicyActions = new Counter({
      name: `${SUBSYSTEM}_pod_failures_handled_by_failure_policy_total`,
      help: 'The number of failed Pods handled by failure policy with respect to the failure policy action applied based on the matched rule.',
      labelNames: ['action'],
      registers,
    });
  }

  static of(registry: Registry): JobMetrics {
    let metrics = JobMetrics.byRegistry.get(registry);
    if (!metrics) {
      metrics = new JobMetrics(registry);
      JobMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }
}
