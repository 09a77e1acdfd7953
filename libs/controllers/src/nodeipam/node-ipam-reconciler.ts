import { Inject } from '@nestjs/common';
import type { Node } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import type { Lister } from '@svc/informers';
import { errorMessage, isNotFound } from '@svc/machinery';
import { parseDualStackCidrs } from '@svc/options';
import { EventRecorder, Manager, Reconciler, type Reconcile, type Request, type Result } from '@svc/runtime';
import { CONTROLLER_MANAGER_OPTIONS, type ControllerManagerOptions } from '../controller-manager-options';
import { NodeCidrAllocator } from './node-cidr-allocator';

/**
 * Kubernetes' node IPAM controller (range allocator): each Node without a pod CIDR gets the lowest
 * free one of `--cluster-cidr`, of `--node-cidr-mask-size` bits, in `spec.podCIDR(s)`; the node agent
 * hands it to its runtime. One worker, so that two nodes never get the same range.
 */
@Reconciler({ name: 'nodeipam', for: BUILTIN_RESOURCES.nodes })
export class NodeIpamReconciler implements Reconcile {
  private readonly nodes: Lister<Node>;
  private readonly allocator?: NodeCidrAllocator;
  private readonly events: EventRecorder;
  /** Ranges given but not yet seen in the cache, so that a quick second node does not get the same. */
  private readonly pending = new Map<string, string>();

  constructor(
    manager: Manager,
    private readonly client: Client,
    @Inject(CONTROLLER_MANAGER_OPTIONS) options: ControllerManagerOptions,
  ) {
    // The flag rules make sure of one IPv4 --cluster-cidr with --allocate-node-cidrs; without them the controller does nothing.
    const [cidr] = options.allocateNodeCidrs && options.clusterCidr ? parseDualStackCidrs(options.clusterCidr) : [];
    this.allocator = cidr?.family === 'IPv4' ? new NodeCidrAllocator(cidr, options.nodeCidrMaskSize ?? options.nodeCidrMaskSizeIpv4 ?? 24) : undefined;
    this.nodes = manager.informerFor(BUILTIN_RESOURCES.nodes).lister();
    this.events = new EventRecorder(client, { component: 'cidrAllocator' });
  }

  async reconcile({ name }: Request): Promise<Result> {
    const node = this.nodes.get(name);
    if (!this.allocator) return {};
    if (!node) {
      this.pending.delete(name);
      return {};
    }
    if (node.spec?.podCIDR) {
      this.pending.delete(name);
      return {};
    }
    const taken = this.nodes
      .list()
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
