import { NODE_LEASE_NAMESPACE, type Lease, type Node, type Taint } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import type { CriClient } from '@svc/cri';
import { errorMessage, isConflict, isNotFound, isAlreadyExists } from '@svc/machinery';
import { goArch, hostInfo, hostUsage, type HostInfo } from './host-facts';
import { nodeStatus, statusSignature, type NodeStatus } from './node-status';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';

export interface NodeReporterOptions {
  nodeName: string;
  registerNode: boolean;
  registerWithTaints: readonly Taint[];
  providerID: string;
  nodeIPs: readonly string[];
  port: number;
  maxPods: number;
  maxImages: number;
  systemReserved: Readonly<Record<string, string | number>>;
  svcReserved: Readonly<Record<string, string | number>>;
  rootDir: string;
  agentVersion: string;
  leaseDurationSeconds: number;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  /** `podCIDR` of the file: handed to the runtime when the Node has none (standalone use). */
  podCIDR: string;
}

function microTime(date: Date): string {
  return date.toISOString().replace('Z', '000Z');
}

/**
 * Registers the Node (well-known labels, addresses, capacity and allocatable, node info, taints),
 * posts its status when it changes and at least every `nodeStatusReportFrequency`, renews its Lease
 * in `svc-node-lease`, and gives the runtime the pod CIDR the controller manager allocated.
 */
export class NodeReporter {
  private readonly host: HostInfo = hostInfo();
  private lastPosted = '';
  private lastPostedAt = 0;
  private previous?: NodeStatus;
  private podCidr = '';
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private registered = false;
  /** The allocatable resources last reported, for the pods' downward API. */
  allocatable: Record<string, string> = {};

  constructor(
    private readonly client: Client,
    private readonly cri: CriClient,
    private readonly options: NodeReporterOptions,
    private readonly log: (message: string) => void,
  ) {}

  get nodeName(): string {
    return this.options.nodeName;
  }

  labels(): Record<string, string> {
    return {
      [LABEL_HOSTNAME]: this.options.nodeName,
      [LABEL_OS]: 'linux',
      [LABEL_ARCH]: goArch(),
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': goArch(),
    };
  }

  private addresses(): Array<{ type: 'InternalIP' | 'Hostname'; address: string }> {
    return [
      ...this.options.nodeIPs.map((address) => ({ type: 'InternalIP' as const, address })),
      { type: 'Hostname' as const, address: this.options.nodeName },
    ];
  }

  private async computeStatus(): Promise<NodeStatus> {
    const cri = this.cri;
    const [version, status, images] = await Promise.allSettled([cri.version(), cri.status(), cri.listImages()]);
    const runtimeError = version.status === 'rejected' ? errorMessage(version.reason) : status.status === 'rejected' ? errorMessage(status.reason) : undefined;
    const computed = nodeStatus({
      host: this.host,
      usage: hostUsage(this.options.rootDir),
      runtimeVersion: version.status === 'fulfilled' ? version.value : undefined,
      runtimeStatus: status.status === 'fulfilled' ? status.value : undefined,
      runtimeError,
      agentVersion: this.options.agentVersion,
      rootDir: this.options.rootDir,
      maxPods: this.options.maxPods,
      systemReserved: this.options.systemReserved,
      svcReserved: this.options.svcReserved,
      addresses: this.addresses(),
      port: this.options.port,
      images: images.status === 'fulfilled' ? images.value : [],
      maxImages: this.options.maxImages,
      previous: this.previous,
      now: new Date(),
    });
    this.allocatable = (computed.allocatable as Record<string, string>) ?? {};
    return computed;
  }

  /** Registers (when asked to) and starts the status and lease loops. */
  async start(): Promise<void> {
    await this.registerOrWait();
    await this.postStatus(true);
    const statusLoop = async () => {
      if (this.stopped) return;
      await this.postStatus(false).catch((error: unknown) => this.log(`node status: ${errorMessage(error)}`));
      if (!this.stopped) this.timers.push(setTimeout(() => void statusLoop(), this.options.updateFrequencyMs));
    };
    this.timers.push(setTimeout(() => void statusLoop(), this.options.updateFrequencyMs));
    // Kubernetes renews the lease every quarter of its duration (10 s for the default 40 s).
    const renewMs = Math.max(1_000, (this.options.leaseDurationSeconds * 1000) / 4);
    const leaseLoop = async () => {
      if (this.stopped) return;
      await this.renewLease().catch((error: unknown) => this.log(`node lease: ${errorMessage(error)}`));
      if (!this.stopped) this.timers.push(setTimeout(() => void leaseLoop(), renewMs));
    };
    await leaseLoop();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
  }

  private async registerOrWait(): Promise<void> {
    const nodes = this.client.resource(BUILTIN_RESOURCES.nodes);
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const existing = await nodes.get(this.options.nodeName).catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });
        if (existing) {
          // Keep the well-known labels right on a node registered before (a new architecture, say).
          const labels = this.labels();
          const stale = Object.entries(labels).some(([k, v]) => existing.metadata?.labels?.[k] !== v);
          if (stale) await nodes.patch(this.options.nodeName, { metadata: { labels } }, 'merge');
          this.afterNode(existing);
          this.registered = true;
          return;
        }
        if (!this.options.registerNode) {
          if (attempt === 0) this.log(`waiting for Node ${this.options.nodeName} to be created (registerNode is false)`);
        } else {
          const status = await this.computeStatus();
          const node: Node = {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: this.options.nodeName, labels: this.labels(), annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
            spec: {
              ...(this.options.registerWithTaints.length > 0 ? { taints: [...this.options.registerWithTaints] } : {}),
              ...(this.options.providerID ? { providerID: this.options.providerID } : {}),
            },
            status,
          };
          const created = await nodes.create(node).catch((error: unknown) => {
            if (isAlreadyExists(error)) return undefined;
            throw error;
          });
          if (created) {
            this.log(`registered node ${this.options.nodeName}`);
            this.previous = status;
            this.afterNode(created);
            this.registered = true;
            return;
          }
        }
      } catch (error) {
        this.log(`registering node ${this.options.nodeName}: ${errorMessage(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(7_000, 200 * 2 ** Math.min(attempt, 6))));
    }
  }

  /** What the Node's spec tells the runtime: its pod CIDR. */
  afterNode(node: Node): void {
    const cidr = node.spec?.podCIDR || this.options.podCIDR;
    if (cidr && cidr !== this.podCidr) {
      this.podCidr = cidr;
      this.cri.updateRuntimeConfig(cidr).then(
        () => this.log(`pod CIDR ${cidr} handed to the runtime`),
        (error: unknown) => {
          this.podCidr = '';
          this.log(`updating the runtime's pod CIDR: ${errorMessage(error)}`);
        },
      );
    }
  }

  /** Posts the status if it changed or the report period passed. */
  async postStatus(force: boolean): Promise<void> {
    if (!this.registered) return;
    const status = await this.computeStatus();
    const signature = statusSignature(status);
    if (!force && signature === this.lastPosted && Date.now() - this.lastPostedAt < this.options.reportFrequencyMs) return;
    const nodes = this.client.resource(BUILTIN_RESOURCES.nodes);
    const updated = await nodes.patchStatus(this.options.nodeName, { status }, 'strategic');
    this.previous = status;
    this.lastPosted = signature;
    this.lastPostedAt = Date.now();
    this.afterNode(updated);
  }

  private async renewLease(): Promise<void> {
    if (!this.registered) return;
    const leases = this.client.resource(BUILTIN_RESOURCES.leases);
    const name = this.options.nodeName;
    const now = microTime(new Date());
    const spec = { holderIdentity: name, leaseDurationSeconds: this.options.leaseDurationSeconds, renewTime: now };
    try {
      const current = await leases.get(name, { namespace: NODE_LEASE_NAMESPACE });
      await leases.update({ ...current, spec: { ...current.spec, ...spec } }, { namespace: NODE_LEASE_NAMESPACE });
    } catch (error) {
      if (isConflict(error)) return;
      if (!isNotFound(error)) throw error;
      const node = await this.client.resource(BUILTIN_RESOURCES.nodes).get(name);
      const lease: Lease = {
        metadata: {
          name,
          namespace: NODE_LEASE_NAMESPACE,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid ?? '' }],
        },
        spec: { ...spec, acquireTime: now },
      };
      await leases.create(lease, { namespace: NODE_LEASE_NAMESPACE }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
  }
}
