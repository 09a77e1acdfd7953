import { NODE_LEASE_NAMESPACE, type Node, type NodeCondition } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { errorMessage, isConflict, isNotFound, jsonClone, metaTime } from '@svc/machinery';
import { consoleControllerLogger, EventRecorder, Runnable, type CacheReader, type RunContext } from '@svc/runtime';
import { NodeLifecycleOptions } from './node-lifecycle-options';
import { PODS_BY_NODE, podsByNodeIndex } from './pods-by-node';
import { excludedFromDisruption, hasTaintLike, nodeCondition, NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE, zoneKeyOf } from './node-helpers';
import { swapNodeTaints } from './swap-taints';
import { ZoneTainter } from './zone-tainter';

/** Kubernetes' node controller states of a zone. */
export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** The conditions a node agent keeps; the ones marked Unknown when it goes silent (NetworkUnavailable is the control plane's). */
const AGENT_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;
/** How often queued nodes are tainted (Kubernetes' nodeEvictionPeriod). */
const TAINTING_PASS_MS = 100;
/** Nodes whose health is worked out at once. */
const WORKERS = 8;

interface NodeHealth {
  /** The Ready condition last seen. */
  ready: NodeCondition | undefined;
  /** When the node last showed life: a new heartbeat, or a lease renewed. */
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  leaseRenewTime: number | undefined;
}

/** Kubernetes' ComputeZoneState: how many nodes are not ready, and what that makes the zone. */
export function computeZoneState(ready: ReadonlyArray<NodeCondition | undefined>, unhealthyThreshold: number): { notReady: number; state: ZoneState } {
  const readyCount = ready.filter((c) => c?.status === 'True').length;
  const notReady = ready.length - readyCount;
  if (readyCount === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + readyCount) >= unhealthyThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

/**
 * The node lifecycle controller's monitor (Kubernetes' monitorNodeHealth, taint-based eviction):
 * every `--node-monitor-period` it checks each node's last sign of life (a new Ready heartbeat or a
 * renewed Lease in svc-node-lease); a node silent past `--node-monitor-grace-period` (or
 * `--node-startup-grace-period` before it ever reported) has its conditions set Unknown, its pods
 * marked not ready, and is queued for the `node.kubernetes.io/unreachable:NoExecute` taint (a node
 * reporting Ready False: `not-ready`). Queued nodes are tainted per zone at `--node-eviction-rate`,
 * or `--secondary-node-eviction-rate` in a zone where `--unhealthy-zone-threshold` of the nodes are
 * not ready (0 in clusters of at most `--large-cluster-size-threshold` nodes), and not at all while
 * every zone is fully down. A node that is Ready again loses both taints.
 */
@Runnable({
  name: 'node-lifecycle-monitor',
  reads: [BUILTIN_RESOURCES.nodes, { resource: BUILTIN_RESOURCES.leases, namespace: NODE_LEASE_NAMESPACE }],
  indexes: [podsByNodeIndex],
})
export class NodeHealthMonitor implements Runnable {
  private readonly events: EventRecorder;
  /** The manager's caches, from the start of a term. */
  private cache!: CacheReader;
  private readonly logger = consoleControllerLogger;
  private health = new Map<string, NodeHealth>();
  private known = new Set<string>();
  private zoneStates = new Map<string, ZoneState>();
  private tainters = new Map<string, ZoneTainter>();
  private retry = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly options: NodeLifecycleOptions,
  ) {
    this.events = new EventRecorder(client, { component: 'node-controller' });
  }

  /** Monitors until `signal` aborts; a new term starts from nothing, as a restarted controller does. */
  async run(signal: AbortSignal, { cache }: RunContext): Promise<void> {
    this.cache = cache;
    this.health = new Map();
    this.known = new Set();
    this.zoneStates = new Map();
    this.tainters = new Map();
    this.retry = new Set();
    let tainting = false;
    const taintTimer = setInterval(() => {
      if (tainting) return;
      tainting = true;
      void this.taintingPass()
        .catch((error: unknown) => this.logger.error('node tainting pass failed', error))
        .finally(() => (tainting = false));
    }, TAINTING_PASS_MS);
    try {
      while (!signal.aborted) {
        await this.monitor().catch((error: unknown) => this.logger.error('node health pass failed', error));
        await sleep(this.options.nodeMonitorPeriod, signal);
      }
    } finally {
      clearInterval(taintTimer);
    }
  }

  /** One pass over every node (Kubernetes' monitorNodeHealth). */
  async monitor(): Promise<void> {
    const nodes = this.cache.list(BUILTIN_RESOURCES.nodes);
    const names = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      this.tainterOf(zoneKeyOf(node));
      if (this.known.has(name)) continue;
      this.known.add(name);
      void this.events.normal(nodeRef(node), 'RegisteredNode', `Registered Node ${name} in Controller`);
      await this.markReachable(node);
    }
    for (const name of [...this.known]) {
      if (names.has(name)) continue;
      this.known.delete(name);
      this.health.delete(name);
      for (const tainter of this.tainters.values()) tainter.remove(name);
      void this.events.normal({ apiVersion: 'v1', kind: 'Node', metadata: { name } }, 'RemovingNode', `Removing Node ${name} from Controller`);
    }
    const zoneConditions = new Map<string, Array<NodeCondition | undefined>>();
    await eachAtMost(WORKERS, nodes, async (cached) => {
      const name = cached.metadata?.name ?? '';
      let outcome: { node: Node; observed: NodeCondition; current: NodeCondition | undefined } | undefined;
      try {
        outcome = await this.tryUpdateNodeHealth(jsonClone(cached));
      } catch (error) {
        if (!isNotFound(error)) this.logger.error(`updating the health of node ${name} failed; no pods are evicted from it in this pass`, error);
        return;
      }
      const { node, observed, current } = outcome;
      if (!excludedFromDisruption(node)) {
        const zone = zoneKeyOf(node);
        zoneConditions.set(zone, [...(zoneConditions.get(zone) ?? []), current]);
      }
      if (current === undefined) return;
      await this.processTaintBasedEviction(node, observed);
      const becameNotReady = current.status !== 'True' && observed.status === 'True';
      if (becameNotReady) void this.events.normal(nodeRef(node), 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      if (becameNotReady || (this.retry.has(name) && current.status !== 'True')) {
        try {
          await this.markPodsNotReady(name);
          this.retry.delete(name);
        } catch (error) {
          this.logger.error(`marking the pods of node ${name} not ready failed; retried next pass`, error);
          this.retry.add(name);
        }
      } else {
        this.retry.delete(name);
      }
    });
    this.handleDisruption(zoneConditions, nodes);
  }

  /** Kubernetes' tryUpdateNodeHealth: the observed Ready condition, and the current one after marking a silent node Unknown. */
  private async tryUpdateNodeHealth(node: Node): Promise<{ node: Node; observed: NodeCondition; current: NodeCondition | undefined }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.updateNodeHealthOnce(node);
      } catch (error) {
        if (!isConflict(error) || attempt >= 4) throw error;
        node = await this.client.nodes.get(node.metadata?.name ?? '');
      }
    }
  }

  private async updateNodeHealthOnce(node: Node): Promise<{ node: Node; observed: NodeCondition; current: NodeCondition | undefined }> {
    const name = node.metadata?.name ?? '';
    const now = Date.now();
    const created = Date.parse(node.metadata?.creationTimestamp ?? '') || now;
    let health = this.health.get(name);
    let current = nodeCondition(node, 'Ready');
    let observed: NodeCondition;
    let gracePeriod: number;
    if (current === undefined) {
      // Never reported: judged from its creation, with the startup grace.
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: metaTime(created), lastTransitionTime: metaTime(created) };
      gracePeriod = this.options.nodeStartupGracePeriod;
      health ??= { ready: undefined, probeTimestamp: created, readyTransitionTimestamp: created, leaseRenewTime: undefined };
    } else {
      observed = { ...current };
      gracePeriod = this.options.nodeMonitorGracePeriod;
    }
    const saved = health?.ready;
    if (health === undefined || (saved === undefined && current !== undefined) || (saved !== undefined && current === undefined)) {
      health = { ready: current, probeTimestamp: now, readyTransitionTimestamp: now, leaseRenewTime: health?.leaseRenewTime };
    } else if (saved !== undefined && current !== undefined && saved.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transitioned = saved.lastTransitionTime !== current.lastTransitionTime;
      health = {
        ready: current,
        probeTimestamp: now,
        readyTransitionTimestamp: transitioned ? now : health.readyTransitionTimestamp,
        leaseRenewTime: health.leaseRenewTime,
      };
    }
    // A renewed lease is a sign of life whatever the status says.
    const lease = this.cache.get(BUILTIN_RESOURCES.leases, { namespace: NODE_LEASE_NAMESPACE, name });
    const renewed = Date.parse(lease?.spec?.renewTime ?? '');
    if (Number.isFinite(renewed) && (health.leaseRenewTime === undefined || health.leaseRenewTime < renewed)) {
      health = { ...health, leaseRenewTime: renewed, probeTimestamp: now };
    }
    this.health.set(name, health);
    if (now <= health.probeTimestamp + gracePeriod) return { node, observed, current };

    const at = metaTime(now);
    const conditions = [...(node.status?.conditions ?? [])];
    for (const type of AGENT_CONDITIONS) {
      const index = conditions.findIndex((c) => c.type === type);
      if (index < 0) {
        conditions.push({
          type,
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: metaTime(created),
          lastTransitionTime: at,
        });
      } else if (conditions[index].status !== 'Unknown') {
        conditions[index] = {
          ...conditions[index],
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
          lastTransitionTime: at,
        };
      }
    }
    current = conditions.find((c) => c.type === 'Ready');
    if (current?.status === observed.status && current.reason === observed.reason) return { node, observed, current };
    const updated = await this.client.nodes.updateStatus({ ...node, status: { ...node.status, conditions } });
    this.health.set(name, { ...health, ready: current, readyTransitionTimestamp: now });
    return { node: updated, observed, current };
  }

  /** Kubernetes' processTaintBaseEviction, judged on the Ready condition seen before this pass. */
  private async processTaintBasedEviction(node: Node, observed: NodeCondition): Promise<void> {
    const name = node.metadata?.name ?? '';
    const tainter = this.tainterOf(zoneKeyOf(node));
    const taints = node.spec?.taints;
    switch (observed.status) {
      case 'False':
        if (hasTaintLike(taints, UNREACHABLE_NO_EXECUTE)) await swapNodeTaints(this.client, node, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]);
        else this.queueForTainting(tainter, name, hasTaintLike(taints, NOT_READY_NO_EXECUTE));
        break;
      case 'Unknown':
        if (hasTaintLike(taints, NOT_READY_NO_EXECUTE)) await swapNodeTaints(this.client, node, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]);
        else this.queueForTainting(tainter, name, hasTaintLike(taints, UNREACHABLE_NO_EXECUTE));
        break;
      case 'True':
        await this.markReachable(node);
        break;
    }
  }

  /** Kubernetes' markNodeForTainting: an untainted node starts its wait again. */
  private queueForTainting(tainter: ZoneTainter, name: string, alreadyTainted: boolean): void {
    if (!alreadyTainted) tainter.remove(name);
    tainter.add(name);
  }

  /** Removes both NoExecute taints and any queued tainting (Kubernetes' markNodeAsReachable). */
  private async markReachable(node: Node): Promise<void> {
    if (hasTaintLike(node.spec?.taints, UNREACHABLE_NO_EXECUTE) || hasTaintLike(node.spec?.taints, NOT_READY_NO_EXECUTE)) {
      await swapNodeTaints(this.client, node, [], [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE]);
    }
    this.tainterOf(zoneKeyOf(node)).remove(node.metadata?.name ?? '');
  }

  /** Kubernetes' doNoExecuteTaintingPass: each zone taints what its rate allows. */
  async taintingPass(): Promise<void> {
    for (const tainter of this.tainters.values()) {
      await tainter.drain(async (name) => {
        const node = this.cache.get(BUILTIN_RESOURCES.nodes, { name });
        if (node === undefined) return true;
        const ready = nodeCondition(node, 'Ready');
        if (ready === undefined) return 50;
        let add;
        let remove;
        if (ready.status === 'False') [add, remove] = [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE];
        else if (ready.status === 'Unknown') [add, remove] = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
        else return true;
        try {
          return (await swapNodeTaints(this.client, node, [add], [remove])) ? true : 0;
        } catch (error) {
          this.logger.error(`tainting node ${name} failed: ${errorMessage(error)}`);
          return 0;
        }
      });
    }
  }

  /** Kubernetes' handleDisruption: each zone's state sets its tainting rate; all zones down stops tainting. */
  private handleDisruption(zoneConditions: ReadonlyMap<string, Array<NodeCondition | undefined>>, nodes: readonly Node[]): void {
    const newStates = new Map<string, ZoneState>();
    let allFullyDisrupted = true;
    for (const [zone, conditions] of zoneConditions) {
      const { state } = computeZoneState(conditions, this.options.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWereFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneConditions.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') allWereFullyDisrupted = false;
    }
    if (allFullyDisrupted && allWereFullyDisrupted) return;
    if (allFullyDisrupted) {
      this.logger.info('every node is not ready: entering master disruption mode, no node is tainted for eviction');
      // Read afresh: a node may have been tainted since the cache this pass read from.
      for (const node of nodes) {
        void this.client.nodes
          .get(node.metadata?.name ?? '')
          .then((fresh) => this.markReachable(fresh))
          .catch((error: unknown) => {
            if (!isNotFound(error)) this.logger.error('removing eviction taints failed', error);
          });
      }
      for (const zone of this.zoneStates.keys()) {
        this.tainterOf(zone).setRate(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFullyDisrupted) {
      this.logger.info('some nodes are ready again: leaving master disruption mode');
      const now = Date.now();
      for (const health of this.health.values()) {
        health.probeTimestamp = now;
        health.readyTransitionTimestamp = now;
      }
      for (const zone of this.zoneStates.keys()) {
        const state = newStates.get(zone) ?? 'Normal';
        this.setZoneRate(zone, zoneConditions.get(zone)?.length ?? 0, state);
        this.zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of [...this.zoneStates]) {
      const next = newStates.get(zone) ?? state;
      if (next === state) continue;
      this.logger.info(`zone ${JSON.stringify(zone)} is now ${next}`);
      this.setZoneRate(zone, zoneConditions.get(zone)?.length ?? 0, next);
      this.zoneStates.set(zone, next);
    }
  }

  private setZoneRate(zone: string, size: number, state: ZoneState): void {
    const o = this.options;
    const rate = state === 'PartialDisruption' ? (size > o.largeClusterSizeThreshold ? o.secondaryNodeEvictionRate : 0) : o.nodeEvictionRate;
    this.tainterOf(zone).setRate(rate);
  }

  private tainterOf(zone: string): ZoneTainter {
    let tainter = this.tainters.get(zone);
    if (tainter === undefined) {
      tainter = new ZoneTainter(this.options.nodeEvictionRate);
      this.tainters.set(zone, tainter);
    }
    return tainter;
  }

  /** Kubernetes' MarkPodsNotReady: the pods of a node that is not ready are not ready either. */
  private async markPodsNotReady(nodeName: string): Promise<void> {
    const pods = this.cache.byIndex(BUILTIN_RESOURCES.pods, PODS_BY_NODE, nodeName);
    for (const pod of pods) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready === undefined || ready.status === 'False') continue;
      const meta = pod.metadata ?? {};
      try {
        await this.client.pods.patchStatus(
          meta.name ?? '',
          { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: metaTime(Date.now()) }] } },
          'strategic',
          { namespace: meta.namespace },
        );
      } catch (error) {
        if (isNotFound(error)) continue;
        throw error;
      }
      void this.events.warning({ apiVersion: 'v1', kind: 'Pod', metadata: meta }, 'NodeNotReady', 'Node is not ready');
    }
  }

  /** For tests: the state each zone is in. */
  zones(): ReadonlyMap<string, ZoneState> {
    return this.zoneStates;
  }
}

function nodeRef(node: Node) {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: node.metadata?.name, uid: node.metadata?.uid } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function eachAtMost<T>(limit: number, items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
