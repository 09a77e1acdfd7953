import { matchingTolerations, minTolerationSeconds, type Node, type Pod } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound } from '@svc/client';
import { jsonEqual, metaTime } from '@svc/machinery';
import { EventRecorder, Reconciler, type CacheReader, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { PODS_BY_NODE, podsByNodeIndex } from './pods-by-node';

const DISRUPTION_TARGET = 'DisruptionTarget';

function noExecuteTaints(node: Node | undefined) {
  return (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
}

function sameNoExecuteTaints(a: Node, b: Node): boolean {
  return jsonEqual(noExecuteTaints(a), noExecuteTaints(b));
}

/** The pods bound to a node, as requests. */
export function podsOn(cache: CacheReader, nodeName: string): Request[] {
  if (nodeName === '') return [];
  return cache.byIndex(BUILTIN_RESOURCES.pods, PODS_BY_NODE, nodeName).map((p) => ({ namespace: p.metadata?.namespace, name: p.metadata?.name ?? '' }));
}

/**
 * Kubernetes' taint eviction (the NoExecuteTaintManager): a pod on a node with NoExecute taints it
 * does not all tolerate is deleted at once; one that tolerates them for `tolerationSeconds` is
 * deleted when the shortest of those runs out, counted from when this controller first saw it so
 * tainted; a pod that tolerates them forever stays, and a taint removed in time cancels the eviction.
 * The pod gets the DisruptionTarget condition and a TaintManagerEviction event before its delete.
 */
@Reconciler({
  name: 'taint-eviction',
  for: BUILTIN_RESOURCES.pods,
  indexes: [podsByNodeIndex],
  // A taint added to or removed from a node concerns every pod on it.
  watches: [
    {
      resource: BUILTIN_RESOURCES.nodes,
      mapTo: (node, _r: unknown, cache) => podsOn(cache, node.metadata?.name ?? ''),
      predicates: [(event) => event.type !== 'update' || !sameNoExecuteTaints(event.oldObject, event.object)],
    },
  ],
  concurrency: 8,
})
export class TaintEvictionReconciler implements Reconcile {
  private readonly events: EventRecorder;
  /** When each pod's eviction was first scheduled, by namespace/name (Kubernetes' TimedWorker.CreatedAt). */
  private readonly scheduled = new Map<string, { uid: string; since: number }>();

  constructor(private readonly client: Client) {
    this.events = new EventRecorder(client, { component: 'taint-eviction-controller' });
  }

  async reconcile(request: Request, { cache }: ReconcileContext): Promise<Result | void> {
    const pod = cache.get(BUILTIN_RESOURCES.pods, request);
    const key = `${request.namespace ?? ''}/${request.name}`;
    if (pod === undefined || pod.metadata?.deletionTimestamp || !pod.spec.nodeName) {
      this.scheduled.delete(key);
      return;
    }
    const uid = pod.metadata?.uid ?? '';
    const taints = noExecuteTaints(cache.get(BUILTIN_RESOURCES.nodes, { name: pod.spec.nodeName }));
    if (taints.length === 0) return this.cancel(pod);
    const { tolerated, matching } = matchingTolerations(taints, pod.spec.tolerations);
    if (!tolerated) return this.evict(pod);
    const tolerationSeconds = minTolerationSeconds(matching);
    if (tolerationSeconds === undefined) return this.cancel(pod);
    const now = Date.now();
    const earlier = this.scheduled.get(key);
    const since = earlier?.uid === uid ? earlier.since : now;
    const deadline = since + tolerationSeconds * 1000;
    this.scheduled.set(key, { uid, since });
    if (deadline <= now) return this.evict(pod);
    return { requeueAfter: deadline - now };
  }

  private cancel(pod: Pod): void {
    const meta = pod.metadata ?? {};
    if (!this.scheduled.delete(`${meta.namespace ?? ''}/${meta.name ?? ''}`)) return;
    void this.events.normal(podRef(pod), 'TaintManagerEviction', `Cancelling deletion of Pod ${meta.namespace}/${meta.name}`);
  }

  private async evict(pod: Pod): Promise<void> {
    const meta = pod.metadata ?? {};
    const namespace = meta.namespace ?? '';
    const name = meta.name ?? '';
    void this.events.normal(podRef(pod), 'TaintManagerEviction', `Marking for deletion Pod ${namespace}/${name}`);
    try {
      if (!pod.status?.conditions?.some((c) => c.type === DISRUPTION_TARGET && c.status === 'True')) {
        await this.client.pods.patchStatus(
          name,
          {
            status: {
              conditions: [
                {
                  type: DISRUPTION_TARGET,
                  status: 'True',
                  reason: 'DeletionByTaintManager',
                  message: 'Taint manager: deleting due to NoExecute taint',
                  lastTransitionTime: metaTime(Date.now()),
                },
              ],
            },
          },
          'strategic',
          { namespace },
        );
      }
      await this.client.pods.delete(name, { namespace, preconditions: { uid: meta.uid } });
    } catch (error) {
      ignoreNotFound(error);
    }
    this.scheduled.delete(`${namespace}/${name}`);
  }
}

function podRef(pod: Pod) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata };
}
