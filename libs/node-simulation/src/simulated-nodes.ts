import { LABEL_ARCH, LABEL_HOSTNAME, LABEL_OS, NODE_LEASE_NAMESPACE, type Lease, type Node, type NodeCondition, type Pod, type Taint } from '@svc/api';
import type { Client } from '@svc/client';
import { listerWatcherFor, RateLimitingQueue, runQueueWorker, SharedInformerFactory, type SharedInformer } from '@svc/informers';
import { isAlreadyExists, isNotFound, metaTime } from '@svc/machinery';
import { runningPodStatus, showsRunning } from './running-pod-status';

/** One simulated node: its name, labels, taints and capacity. */
export interface SimulatedNodeSpec {
  name: string;
  /** Added to the well-known ones (`kubernetes.io/hostname`, `kubernetes.io/os`, `kubernetes.io/arch`). */
  labels?: Record<string, string>;
  /** Registered with the node (the node agent's `registerWithTaints`). */
  taints?: Taint[];
  /** `cpu`, `memory`, `pods`, `ephemeral-storage` and any extended resource; allocatable is the same. Defaults: 8 CPUs, 32Gi, 110 pods, 100Gi. */
  capacity?: Record<string, string>;
}

export interface SimulatedNodesOptions {
  /** The Lease's `leaseDurationSeconds` (the node agent's `nodeLeaseDurationSeconds`, 40 by default); it is renewed every quarter of it. */
  leaseDurationSeconds?: number;
  /** How often the node status is posted though nothing changed (the node agent's `nodeStatusReportFrequency`, 5 minutes by default). */
  statusReportMs?: number;
  /** Whether a pod on a node should be ready; every pod by default. */
  podReady?: (pod: Pod) => boolean;
  /** Pod status writes in flight at once. Default 8. */
  concurrency?: number;
}

const DEFAULT_CAPACITY: Record<string, string> = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
const VERSION = 'v0.1.0-simulated';

function microseconds(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The conditions a healthy node agent reports, Ready as asked. */
function nodeConditions(ready: boolean, now: Date, previous: readonly NodeCondition[] | undefined): NodeCondition[] {
  const at = metaTime(now);
  const before = new Map((previous ?? []).map((c) => [c.type, c]));
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => ({
    type,
    status,
    lastHeartbeatTime: at,
    lastTransitionTime: before.get(type)?.status === status ? (before.get(type)?.lastTransitionTime ?? at) : at,
    reason,
    message,
  });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    ready
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
      : condition('Ready', 'False', 'KubeletNotReady', 'container runtime network not ready: simulated'),
  ];
}

/** One node's state in the simulator. */
class SimulatedNode {
  running = false;
  ready = true;
  uid: string | undefined;
  conditions: NodeCondition[] | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private readonly podIps = new Map<string, string>();
  private nextIp = 1;

  constructor(
    readonly spec: SimulatedNodeSpec,
    readonly index: number,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** The node's own address: 172.16.0.0/12, one per node. */
  get ip(): string {
    return `172.${16 + ((this.index >> 16) & 15)}.${(this.index >> 8) & 255}.${this.index & 255}`;
  }

  /** Its pod range: a /24 of 10.0.0.0/8 per node. */
  get podCidr(): string {
    return `10.${(this.index >> 8) & 255}.${this.index & 255}.0/24`;
  }

  podIp(key: string): string {
    let ip = this.podIps.get(key);
    if (ip === undefined) {
      const n = (this.nextIp++ % 253) + 1;
      ip = `10.${(this.index >> 8) & 255}.${this.index & 255}.${n}`;
      this.podIps.set(key, ip);
    }
    return ip;
  }

  forgetPod(key: string): void {
    this.podIps.delete(key);
  }

  startTimers(renew: () => void, report: () => void, leaseMs: number, reportMs: number): void {
    this.stopTimers();
    // Staggered, so that a thousand nodes started together do not renew together.
    const offset = Math.floor(Math.random() * leaseMs);
    this.leaseTimer = setTimeout(() => {
      renew();
      this.leaseTimer = setInterval(renew, leaseMs);
    }, offset);
    this.statusTimer = setInterval(report, reportMs);
  }

  stopTimers(): void {
    clearTimeout(this.leaseTimer);
    clearInterval(this.leaseTimer);
    clearInterval(this.statusTimer);
    this.leaseTimer = undefined;
    this.statusTimer = undefined;
  }
}

/**
 * Many simulated nodes from one process (the part KWOK plays for Kubernetes), each behaving as a node
 * agent does towards the control plane: it registers a Node with the well-known labels, its capacity
 * and allocatable, addresses and the Ready / MemoryPressure / DiskPressure / PIDPressure conditions;
 * renews a Lease named after it in `svc-node-lease` every quarter of its duration; posts its status
 * every `statusReportMs` and on change; and writes the status of the pods bound to it (Running, an IP,
 * Ready) and deletes them once they are marked for deletion, as a node agent does after stopping the
 * containers. A stopped node does none of this, as a crashed agent would not.
 */
export class SimulatedNodes {
  private readonly nodes = new Map<string, SimulatedNode>();
  private readonly factory = new SharedInformerFactory();
  private readonly pods: SharedInformer<Pod>;
  private readonly queue = new RateLimitingQueue<string>();
  private readonly leases;
  private readonly leaseMs: number;
  private readonly leaseSeconds: number;
  private readonly reportMs: number;
  private podReady: (pod: Pod) => boolean;
  private workers: Promise<void>[] = [];
  private nextIndex = 1;
  /** Pod status writes and deletions made so far. */
  podWrites = 0;
  /** Lease renewals made so far. */
  renewals = 0;

  private constructor(
    private readonly client: Client,
    private readonly options: SimulatedNodesOptions,
  ) {
    this.leaseSeconds = options.leaseDurationSeconds ?? 40;
    this.leaseMs = (this.leaseSeconds * 1000) / 4;
    this.reportMs = options.statusReportMs ?? 5 * 60_000;
    this.podReady = options.podReady ?? (() => true);
    this.leases = client.leases.inNamespace(NODE_LEASE_NAMESPACE);
    const scope = { fieldSelector: 'spec.nodeName!=' };
    this.pods = this.factory.informerFor<Pod>({ resource: 'v1/pods', ...scope }, () => listerWatcherFor(client.pods, scope));
  }

  /** Registers the nodes and runs them until {@link stopAll}. */
  static async start(client: Client, specs: readonly SimulatedNodeSpec[], options: SimulatedNodesOptions = {}): Promise<SimulatedNodes> {
    const simulator = new SimulatedNodes(client, options);
    simulator.factory.start();
    await simulator.factory.waitForCacheSync(60_000);
    simulator.pods.addEventHandler({
      onAdd: (pod) => simulator.enqueue(pod),
      onUpdate: (_, pod) => simulator.enqueue(pod),
      onDelete: (pod) => simulator.nodes.get(pod.spec.nodeName ?? '')?.forgetPod(keyOf(pod)),
    });
    simulator.workers = Array.from({ length: options.concurrency ?? 8 }, () => simulator.work());
    await simulator.add(...specs);
    return simulator;
  }

  /** Node names, in the order they were added. */
  names(): string[] {
    return [...this.nodes.keys()];
  }

  /** Registers more nodes and starts them; resolves once every one is registered and has renewed its lease. */
  async add(...specs: readonly SimulatedNodeSpec[]): Promise<void> {
    const added = specs.map((spec) => {
      if (this.nodes.has(spec.name)) throw new Error(`node ${spec.name} is already simulated`);
      const node = new SimulatedNode(spec, this.nextIndex++);
      this.nodes.set(spec.name, node);
      return node;
    });
    await inBatches(added, 16, (node) => this.register(node));
    for (const node of added) this.run(node);
  }

  /** The node stops renewing its lease, posting status and looking after its pods, as if its agent crashed. */
  stop(name: string): void {
    const node = this.node(name);
    node.running = false;
    node.stopTimers();
  }

  /** A stopped node comes back: it renews its lease and posts its status at once. */
  async resume(name: string): Promise<void> {
    const node = this.node(name);
    await Promise.all([this.renew(node), this.postStatus(node)]);
    this.run(node);
  }

  /** The node reports Ready True or False (a live node whose runtime broke reports False). */
  async setReady(name: string, ready: boolean): Promise<void> {
    const node = this.node(name);
    node.ready = ready;
    await this.postStatus(node);
  }

  /** Changes which pods should be ready, and brings every pod on a running node in line with it. */
  setPodReadiness(ready: (pod: Pod) => boolean): void {
    this.podReady = ready;
    for (const pod of this.pods.lister().list()) this.enqueue(pod);
  }

  /** Stops the node and deletes its Node and Lease, as when a machine leaves the cluster. */
  async remove(name: string): Promise<void> {
    this.stop(name);
    this.nodes.delete(name);
    await this.client.nodes.delete(name).catch(ignoreNotFound);
    await this.leases.delete(name).catch(ignoreNotFound);
  }

  /** Stops every node (their Nodes stay, as after a crash of the whole simulator) and the informer. */
  async stopAll(): Promise<void> {
    for (const node of this.nodes.values()) this.stop(node.name);
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.factory.shutdown();
  }

  private node(name: string): SimulatedNode {
    const node = this.nodes.get(name);
    if (node === undefined) throw new Error(`node ${name} is not simulated here`);
    return node;
  }

  private run(node: SimulatedNode): void {
    node.running = true;
    node.startTimers(
      () => void this.renew(node).catch(() => undefined),
      () => void this.postStatus(node).catch(() => undefined),
      this.leaseMs,
      this.reportMs,
    );
    for (const pod of this.pods.lister().list()) if (pod.spec.nodeName === node.name) this.enqueue(pod);
  }

  private nodeObject(node: SimulatedNode): Node {
    const capacity = { ...DEFAULT_CAPACITY, ...(node.spec.capacity ?? {}) };
    node.conditions = nodeConditions(node.ready, new Date(), node.conditions);
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: node.name,
        labels: { [LABEL_ARCH]: 'amd64', [LABEL_HOSTNAME]: node.name, [LABEL_OS]: 'linux', ...(node.spec.labels ?? {}) },
      },
      spec: { podCIDR: node.podCidr, podCIDRs: [node.podCidr], ...(node.spec.taints?.length ? { taints: node.spec.taints } : {}) },
      status: {
        capacity,
        allocatable: capacity,
        conditions: node.conditions,
        addresses: [
          { type: 'InternalIP', address: node.ip },
          { type: 'Hostname', address: node.name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: node.name,
          systemUUID: node.name,
          bootID: node.name,
          kernelVersion: 'simulated',
          osImage: 'simulated node',
          containerRuntimeVersion: 'simulated://0.1.0',
          kubeletVersion: VERSION,
          kubeProxyVersion: VERSION,
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
    };
  }

  /** Creates the Node (a restarted agent finds it and posts its status and labels instead) and the first lease. */
  private async register(node: SimulatedNode): Promise<void> {
    const wanted = this.nodeObject(node);
    try {
      const created = await this.client.nodes.create(wanted);
      node.uid = created.metadata?.uid;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await this.client.nodes.patch(node.name, { metadata: { labels: wanted.metadata?.labels } }, 'strategic');
      node.uid = existing.metadata?.uid;
      await this.postStatus(node);
    }
    await this.renew(node);
  }

  private async renew(node: SimulatedNode): Promise<void> {
    const lease: Lease = {
      metadata: {
        name: node.name,
        namespace: NODE_LEASE_NAMESPACE,
        ...(node.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid }] } : {}),
      },
      spec: { holderIdentity: node.name, leaseDurationSeconds: this.leaseSeconds, renewTime: microseconds(new Date()) },
    };
    await this.leases.update(lease);
    this.renewals++;
  }

  private async postStatus(node: SimulatedNode): Promise<void> {
    const status = this.nodeObject(node).status;
    await this.client.nodes.patchStatus(node.name, { status }, 'strategic');
  }

  private enqueue(pod: Pod): void {
    const node = this.nodes.get(pod.spec.nodeName ?? '');
    if (node?.running) this.queue.add(keyOf(pod));
  }

  private work(): Promise<void> {
    // A pod gone meanwhile needs nothing more.
    return runQueueWorker(
      this.queue,
      (key) => this.sync(key),
      (error) => !isNotFound(error),
    );
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pod = this.pods.lister().namespace(namespace).get(name);
    const node = this.nodes.get(pod?.spec.nodeName ?? '');
    if (!pod || !node?.running) return;
    if (pod.metadata?.deletionTimestamp) {
      // The containers are gone at once: the agent's final delete.
      await this.client.pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
      node.forgetPod(key);
      this.podWrites++;
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const ready = this.podReady(pod);
    if (showsRunning(pod, ready)) return;
    const status = runningPodStatus(pod, { podIP: pod.status?.podIP || node.podIp(key), hostIP: node.ip, ready });
    await this.client.pods.patchStatus(name, { status }, 'strategic', { namespace });
    this.podWrites++;
  }
}

function keyOf(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

function ignoreNotFound(error: unknown): void {
  if (!isNotFound(error)) throw error;
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
