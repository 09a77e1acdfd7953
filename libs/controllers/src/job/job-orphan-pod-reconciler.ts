import { JOB_TRACKING_FINALIZER, type Job, type Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ResourceClient } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import { getControllerOf, Reconciler, type CacheReader, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { POD_CONTROLLER_UID_INDEX, podControllerUidIndex } from '../common/pod-controller-index';
import { isJobFinished } from './job-conditions';
import { hasTrackingFinalizer } from './job-pod-state';
import { managedElsewhere } from './job-reconciler';

const tracked: Predicate<Pod> = (event) => event.type !== 'delete' && hasTrackingFinalizer(event.object);

/** A Job that is gone or finished releases the pods that still carry its finalizer. */
function podsToRelease(job: Job, cache: CacheReader): Request[] {
  if (managedElsewhere(job)) return [];
  return cache
    .byIndex(BUILTIN_RESOURCES.pods, POD_CONTROLLER_UID_INDEX, job.metadata?.uid ?? '')
    .filter(hasTrackingFinalizer)
    .map((pod) => ({ namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '' }));
}

const jobGoneOrFinished: Predicate<Job> = (event) => event.type === 'delete' || (event.type === 'update' && isJobFinished(event.object));

/**
 * Kubernetes' orphan pod handling of the job controller: a pod carrying the job-tracking finalizer
 * whose Job is gone (or replaced), finished, or that has no controller at all loses the finalizer,
 * so that nothing keeps it from being deleted. Pods of a running Job, of a Job another controller
 * manages, or of another kind of controller are left alone.
 */
@Reconciler({
  name: 'job-orphan-pods',
  for: BUILTIN_RESOURCES.pods,
  predicates: [tracked],
  indexes: [podControllerUidIndex],
  watches: [{ resource: BUILTIN_RESOURCES.jobs, mapTo: (job, _r: unknown, cache) => podsToRelease(job, cache), predicates: [jobGoneOrFinished] }],
})
export class JobOrphanPodReconciler implements Reconcile {
  private readonly pods: ResourceClient<Pod>;

  constructor(client: Client) {
    this.pods = client.pods;
  }

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const pod = cache.get(BUILTIN_RESOURCES.pods, { namespace, name });
    if (!pod || !hasTrackingFinalizer(pod)) return {};
    const ref = getControllerOf(pod);
    if (ref) {
      // Another kind of controller's pod: its finalizer is none of this controller's business.
      if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return {};
      const job = cache.lister(BUILTIN_RESOURCES.jobs).namespace(namespace).get(ref.name);
      if (job && job.metadata?.uid === ref.uid) {
        if (managedElsewhere(job) || !isJobFinished(job)) return {};
      }
    }
    try {
      await this.pods.patch(name, { metadata: { ['$deleteFromPrimitiveList/finalizers']: [JOB_TRACKING_FINALIZER] } } as never, 'strategic', { namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return {};
  }
}
