import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { errorMessage, isNotFound } from '@svc/machinery';
import { EventRecorder, Reconciler, type Reconcile, type ReconcileContext, type Request, type Result } from '@svc/runtime';
import { NodeCidrAllocator } from './node-cidr-allocator';
import { NodeIpamOptions } from './node-ipam-options';

/**
 * Kubernetes' node IPAM controller (range allocator): each Node without a pod CIDR gets the lowest
 * free one of `--cluster-cidr`, of `--node-cidr-mask-size` bits, in `spec.podCIDR(s)`; the node agent
 * hands it to its runtime. One worker, so that two nodes never get the same range.
 */
@Reconciler({ name: 'nodeipam', for: BUILTIN_RESOURCES.nodes })
export class NodeIpamReconciler implements Reconcile {
  private readonly allocator?: NodeCidrAllocator;
  private readonly events: EventRecorder;
  /** Ranges given but not yet seen in the cache, so that a quick second node does not get the same. */
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly client: Client,
    options: NodeIpamOptions,
  ) {
    this.allocator = options.clusterCidr ? new NodeCidrAllocator(options.clusterCidr, options.maskSize) : undefined;
    this.events = new EventRecorder(client, { component: 'cidrAllocator' });
  }

  async reconcile({ name }: Request, { cache }: ReconcileContext): Promise<Result> {
    const node = cache.get(BUILTIN_RESOURCES.nodes, { name });
    if (!this.allocator) return {};
    if (!node) {
      this.pending.delete(name);
      return {};
    }
    if (node.spec?.podCIDR) {
      this.pending.delete(name);
      return {};
    }
    const taken = cache
      .list(BUILTIN_RESOURCES.nodes)
      .flatMap((n) => n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : []))
      .concat([...this.pending].filter(([owner]) => owner !== name).map(([, cidr]) => cidr));
    const cidr = this.pending.get(name) ?? this.allocator.next(taken);
    if (!cidr) {
      void this.events.event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
      return { requeueAfter: 30_000 };
    }
    this.pending.set(name, cidr);
    try {
      await this.client.nodes.patch(name, { spec: { podCIDR: cidr, podCIDRs: [cidr] } }, 'merge');
      void this.events.event(node, 'Normal', 'CIDRAssignmentSucceeded', `Node ${name} got pod CIDR ${cidr}`);
    } catch (error) {
      if (isNotFound(error)) {
        this.pending.delete(name);
        return {};
      }
      throw new Error(`assigning ${cidr} to node ${name}: ${errorMessage(error)}`);
    }
    return {};
  }
}
