import type { Job } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { isConflict, isNotFound } from '@svc/machinery';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { needsCleanup, ttlRemainingMs } from './ttl-expiry';

export const TTL_AFTER_FINISHED_RECONCILER_NAME = 'ttl-after-finished';

/** Only Jobs that are finished with a TTL and not yet being deleted concern this controller. */
const toCleanUp: Predicate<Job> = (event) => event.type !== 'delete' && !event.object.metadata?.deletionTimestamp && needsCleanup(event.object);

/**
 * Kubernetes' TTL-after-finished controller: deletes a finished Job `ttlSecondsAfterFinished`
 * seconds after its Complete or Failed condition was set, in the foreground, so that the Job goes
 * only after its pods. Before deleting it reads the Job again from the API server: a TTL changed
 * meanwhile (or a new Job of the same name) is judged afresh, and the uid precondition makes sure
 * only the Job that expired is deleted.
 */
@Reconciler({ name: TTL_AFTER_FINISHED_RECONCILER_NAME, for: BUILTIN_RESOURCES.jobs, predicates: [toCleanUp] })
export class TtlAfterFinishedReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile({ namespace = '', name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const cached = cache.lister(BUILTIN_RESOURCES.jobs).namespace(namespace).get(name);
    if (!cached) return {};
    const remaining = ttlRemainingMs(cached, Date.now());
    if (remaining === undefined) return {};
    if (remaining > 0) return { requeueAfter: remaining };

    // The cache may hold an older TTL: the Job as the server has it now decides.
    let fresh: Job;
    try {
      fresh = await this.client.jobs.get(name, { namespace });
    } catch (error) {
      if (isNotFound(error)) return {};
      throw error;
    }
    const freshRemaining = ttlRemainingMs(fresh, Date.now());
    if (freshRemaining === undefined) return {};
    if (freshRemaining > 0) return { requeueAfter: freshRemaining };
    try {
      await this.client.jobs.delete(name, { namespace, propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid } });
    } catch (error) {
      // Gone already, or replaced by a Job of the same name (the uid precondition): nothing to do here.
      if (isNotFound(error) || isConflict(error)) return {};
      throw error;
    }
    return {};
  }
}
