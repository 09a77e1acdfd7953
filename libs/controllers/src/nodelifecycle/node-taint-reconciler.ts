import { TAINT_NODE_UNSCHEDULABLE } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { Reconciler, type Reconcile, type ReconcileContext, type Request } from '@svc/runtime';
import { CONDITION_TAINT_KEYS, conditionNoScheduleTaints, sameTaint } from './node-helpers';
import { swapNodeTaints } from './swap-taints';

/**
 * Kubernetes' doNoScheduleTaintingPass (taint nodes by condition): each node carries the NoSchedule
 * taints its conditions call for (`not-ready` for Ready False, `unreachable` for Unknown,
 * `memory-pressure`, `disk-pressure`, `pid-pressure`, `network-unavailable`) and
 * `node.kubernetes.io/unschedulable` while cordoned, and no others of those keys: so a new node's
 * `not-ready` taint goes once it reports Ready.
 */
@Reconciler({ name: 'node-lifecycle-taints', for: BUILTIN_RESOURCES.nodes })
export class NodeTaintReconciler implements Reconcile {
  constructor(private readonly client: Client) {}

  async reconcile(request: Request, { cache }: ReconcileContext): Promise<void> {
    const node = cache.get(BUILTIN_RESOURCES.nodes, request);
    if (node === undefined) return;
    const wanted = conditionNoScheduleTaints(node, TAINT_NODE_UNSCHEDULABLE);
    const present = (node.spec?.taints ?? []).filter(
      (t) => t.effect === 'NoSchedule' && (t.key === TAINT_NODE_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)),
    );
    const add = wanted.filter((w) => !present.some((p) => sameTaint(p, w)));
    const remove = present.filter((p) => !wanted.some((w) => sameTaint(p, w)));
    if (add.length === 0 && remove.length === 0) return;
    if (!(await swapNodeTaints(this.client, node, add, remove))) throw new Error(`the taints of node ${request.name} could not be updated`);
  }
}
