import { metaTime } from '@svc/machinery';
import type { Pod, PodCondition } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import { Reconciler, type Predicate, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { isPodTerminating } from '../common/pod-status';

/** How long a pod marked as about to be disrupted may stay without being deleted (Kubernetes' stalePodDisruptionTimeout). */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

const DISRUPTION_TARGET = 'DisruptionTarget';
/** The node agent's own mark: its termination may take any time before the pod is deleted. */
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';

/**
 * Whether the pod carries a DisruptionTarget=True condition that may go stale (Kubernetes'
 * nonTerminatingPodHasStaleDisruptionCondition): not being deleted, not finished, not the node
 * agent's; and how long (ms) until it is stale, 0 when it is already.
 */
export function staleDisruptionCondition(pod: Pod, now: number): { has: boolean; waitMs: number } {
  if (isPodTerminating(pod)) return { has: false, waitMs: 0 };
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return { has: false, waitMs: 0 };
  const condition = pod.status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
  if (condition?.status !== 'True' || condition.reason === TERMINATION_BY_KUBELET) return { has: false, waitMs: 0 };
  const since = Date.parse(condition.lastTransitionTime ?? '');
  const waitMs = Number.isFinite(since) ? Math.max(0, since + STALE_POD_DISRUPTION_TIMEOUT_MS - now) : 0;
  return { has: true, waitMs };
}

const MayBeStale: Predicate<Pod> = (event) => event.type !== 'delete' && staleDisruptionCondition(event.object, Date.now()).has;

/**
 * The disruption controller's second job: a pod marked DisruptionTarget=True (by an eviction, the
 * pod garbage collector, taint eviction) that is still there, not being deleted, two minutes later
 * was not disrupted after all, and its condition is set back to False.
 */
@Reconciler({ name: 'disruption-stale-pods', for: BUILTIN_RESOURCES.pods, predicates: [MayBeStale] })
export class StalePodDisruptionReconciler implements Reconcile {
  private readonly podClient: ResourceClient<Pod>;

  constructor(client: Client) {
    this.podClient = client.pods;
  }

  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const pod = namespace ? cache.get(BUILTIN_RESOURCES.pods, { namespace, name }) : undefined;
    if (!pod) return {};
    const { has, waitMs } = staleDisruptionCondition(pod, Date.now());
    if (!has) return {};
    if (waitMs > 0) return { requeueAfter: waitMs };
    // Kubernetes' UpdatePodCondition with only type and status: reason and message go with the True.
    const reset: PodCondition = { type: DISRUPTION_TARGET, status: 'False', lastTransitionTime: metaTime(Date.now()) };
    const conditions = (pod.status?.conditions ?? []).map((c) => (c.type === DISRUPTION_TARGET ? reset : c));
    await this.podClient.updateStatus({ ...pod, status: { ...pod.status, conditions } }, { namespace }).catch(ignoreNotFound);
    return {};
  }
}
