import type { EndpointSlice, Node, Service } from '@svc/api';
import type { Client } from '@svc/client';
import { listerWatcherFor, SharedInformerFactory, type InformerLogger, type SharedInformer } from '@svc/informers';
import { localAddresses, localTrafficFor, nodePortAddressesFor, primaryNodeIPs, ZONE_LABEL, type LocalDetectSettings } from '../host/node-addresses';
import { deleteFlows, staleUdpDeletions, udpSnapshot } from '../host/stale-udp-flows';
import { endpointsOf, lastChangeTriggerTime, sliceService, type EndpointInfo } from '../model/endpoints';
import type { IpFamily } from '../model/ip';
import type { ProblemsByService, ProxyRuleConfig, ProxyState } from '../model/proxy-state';
import { HEADLESS_LABEL, SERVICE_PROXY_NAME_LABEL, servicePortsOf, type KernelSupport, type ServicePortInfo } from '../model/service-port';
import type { ProxierHealth } from '../observe/proxier-health';
import type { ProxyMetrics } from '../observe/proxy-metrics';
import type { ServiceEvents } from '../observe/service-events';
import { BoundedFrequencyRunner } from './bounded-frequency-runner';
import type { ProxyBackend } from './proxy-backend';

/** Besides the first sync and failures, everything is read back and rewritten this often (as kube-proxy). */
export const FULL_SYNC_PERIOD_MS = 60 * 60_000;

/** The settings of `svc-proxy` the sync loop reads (flags, in milliseconds). */
export interface ProxierSettings extends LocalDetectSettings {
  bindAddress: string;
  nodeportAddresses: readonly string[];
  masqueradeAll: boolean;
  iptablesMasqueradeBit: number;
  iptablesSyncPeriod: number;
  iptablesMinSyncPeriod: number;
  configSyncPeriod: number;
}

export interface ProxierDependencies {
  client: Client;
  nodeName: string;
  settings: ProxierSettings;
  backend: ProxyBackend;
  kernel: KernelSupport & { families: readonly IpFamily[] };
  metrics: ProxyMetrics;
  health: ProxierHealth;
  events: ServiceEvents;
  /** The conntrack command, to clear stale UDP flows; without it they age out on their own. */
  conntrack?: string;
  log: (line: string) => void;
  informerLogger?: InformerLogger;
}

/** kube-proxy's informer selection: Services (and slices) another proxy serves, or headless ones, are not watched. */
export const PROXY_LABEL_SELECTOR = `!${SERVICE_PROXY_NAME_LABEL},!${HEADLESS_LABEL}`;

/**
 * The sync loop: Services, EndpointSlices and this node's Node through informers; each change asks
 * the runner for a sync, which computes every family's rules from the caches and lets the backend
 * program the difference. Nothing is programmed before both caches have synced, so a restart never
 * writes rules from a partial view.
 */
export class Proxier {
  private readonly factory: SharedInformerFactory;
  private readonly services: SharedInformer<Service>;
  private readonly slices: SharedInformer<EndpointSlice>;
  private readonly node: SharedInformer<Node>;
  private readonly runner: BoundedFrequencyRunner;
  private initialized = false;
  private needFullSync = true;
  private lastFullSync = 0;
  private pendingTriggers: number[] = [];
  private pendingServices = 0;
  private pendingEndpoints = 0;
  private readonly udpBefore = new Map<IpFamily, ReturnType<typeof udpSnapshot>>();
  private eventsDone: Promise<void> = Promise.resolve();
  private warnedNoConntrack = false;
  private lastWarning = '';
  private syncs = 0;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ProxierDependencies) {
    const { client, settings, nodeName } = deps;
    this.factory = new SharedInformerFactory({ defaultResyncPeriodMs: settings.configSyncPeriod, logger: deps.informerLogger });
    const scope = { labelSelector: PROXY_LABEL_SELECTOR };
    this.services = this.factory.informerFor<Service>({ resource: 'v1/services', ...scope }, () => listerWatcherFor(client.services, scope));
    this.slices = this.factory.informerFor<EndpointSlice>({ resource: 'discovery.k8s.io/v1/endpointslices', ...scope }, () =>
      listerWatcherFor(client.endpointSlices, scope),
    );
    const nodeScope = { fieldSelector: `metadata.name=${nodeName}` };
    this.node = this.factory.informerFor<Node>({ resource: 'v1/nodes', ...nodeScope }, () => listerWatcherFor(client.nodes, nodeScope));
    this.runner = new BoundedFrequencyRunner(() => this.sync(), {
      minIntervalMs: settings.iptablesMinSyncPeriod,
      maxIntervalMs: settings.iptablesSyncPeriod,
      burst: 2,
    });

    const changed = (kind: 'service' | 'endpoints', old: unknown, now: unknown) => {
      if (old === now) return; // a resync: nothing new
      if (kind === 'service') {
        this.pendingServices++;
        deps.metrics.serviceChangesTotal.inc();
        deps.metrics.serviceChangesPending.set(this.pendingServices);
      } else {
        this.pendingEndpoints++;
        deps.metrics.endpointChangesTotal.inc();
        deps.metrics.endpointChangesPending.set(this.pendingEndpoints);
        const trigger = now ? lastChangeTriggerTime(now as EndpointSlice) : undefined;
        if (trigger !== undefined) this.pendingTriggers.push(trigger);
      }
      this.queue();
    };
    this.services.addEventHandler({
      onAdd: (s) => changed('service', undefined, s),
      onUpdate: (a, b) => changed('service', a, b),
      onDelete: (s) => {
        deps.events.forget(s);
        changed('service', s, undefined);
      },
    });
    this.slices.addEventHandler({
      onAdd: (s) => changed('endpoints', undefined, s),
      onUpdate: (a, b) => changed('endpoints', a, b),
      onDelete: (s) => changed('endpoints', s, undefined),
    });
    this.node.addEventHandler({
      onAdd: (n) => this.nodeChanged(n),
      onUpdate: (a, b) => (a === b ? undefined : this.nodeChanged(b)),
      onDelete: () => this.queue(),
    });
  }

  /** Starts the informers; the first sync follows once Services and EndpointSlices are in the caches. */
  async start(): Promise<void> {
    this.factory.start();
    for (;;) {
      const [services, slices] = await Promise.all([this.services.whenSynced(30_000), this.slices.whenSynced(30_000)]);
      if (services && slices) break;
      this.deps.log(
        `waiting for the Service and EndpointSlice caches to sync: ${this.services.lastError?.message ?? this.slices.lastError?.message ?? 'no answer yet'}`,
      );
    }
    this.initialized = true;
    this.deps.metrics.lastQueued.setToCurrentTime();
    await this.sync();
    this.runner.start();
  }

  async stop(): Promise<void> {
    this.runner.stop();
    await this.runner.idle();
    await this.factory.shutdown();
    await this.eventsDone;
  }

  /** Asks for a sync (a change arrived). */
  queue(): void {
    if (!this.initialized) return;
    this.deps.health.queuedUpdate();
    this.deps.metrics.lastQueued.setToCurrentTime();
    this.runner.run();
  }

  /** How many syncs have completed (successful or not). */
  get syncCount(): number {
    return this.syncs;
  }

  private nodeChanged(node: Node): void {
    this.deps.health.syncNode(node);
    this.queue();
  }

  /** One sync of every family, after any in progress; failures are logged, counted and retried with a full sync. */
  sync(): Promise<void> {
    const run = this.syncing.then(() => this.syncOnce());
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async syncOnce(): Promise<void> {
    if (!this.initialized) return;
    const { backend, metrics, health, settings, kernel, nodeName } = this.deps;
    const started = Date.now();
    const full = this.needFullSync || started - this.lastFullSync >= FULL_SYNC_PERIOD_MS;
    const triggers = this.pendingTriggers;
    this.pendingTriggers = [];
    this.pendingServices = 0;
    this.pendingEndpoints = 0;
    metrics.serviceChangesPending.set(0);
    metrics.endpointChangesPending.set(0);

    const services = this.services.lister().list();
    const slicesByService = new Map<string, EndpointSlice[]>();
    for (const slice of this.slices.lister().list()) {
      const key = sliceService(slice);
      if (key === undefined) continue;
      const list = slicesByService.get(key) ?? [];
      list.push(slice);
      slicesByService.set(key, list);
    }
    const node = this.node.lister().get(nodeName);
    const primary = primaryNodeIPs(settings.bindAddress, node);
    const local = localAddresses();
    const problems: ProblemsByService = new Map();
    const addProblems = (key: string, list: readonly { reason: string; message: string }[]) => {
      if (list.length === 0) return;
      problems.set(key, [...(problems.get(key) ?? []), ...list]);
    };
    const noLocal = { internal: 0, external: 0 };
    const warnings: string[] = [];

    try {
      for (const family of kernel.families) {
        const ports: ServicePortInfo[] = [];
        const endpoints = new Map<string, EndpointInfo[]>();
        for (const service of services) {
          const key = `${service.metadata?.namespace}/${service.metadata?.name}`;
          const found = servicePortsOf(service, family, kernel);
          addProblems(key, found.problems);
          if (found.ports.length === 0) continue;
          ports.push(...found.ports);
          for (const [k, v] of endpointsOf(slicesByService.get(key) ?? [], family, nodeName)) endpoints.set(k, v);
        }
        const nodePorts = nodePortAddressesFor(settings.nodeportAddresses, backend.mode === 'nftables', family, primary, local);
        if (nodePorts.skippedLoopback) warnings.push(`${family}: NodePorts are not served on loopback addresses; set --bind-address to the node's IP`);
        const config: ProxyRuleConfig = {
          family,
          masqueradeAll: settings.masqueradeAll,
          masqueradeMark: 2 ** settings.iptablesMasqueradeBit,
          localTraffic: localTrafficFor(settings, node, family),
          nodePortAddresses: nodePorts.addresses,
          ...(primary.get(family) ? { nodeIP: primary.get(family) } : {}),
        };
        const state: ProxyState = { ports, endpoints, ...(node?.metadata?.labels?.[ZONE_LABEL] ? { zone: node.metadata.labels[ZONE_LABEL] } : {}) };
        const result = await backend.sync(family, config, state, full);
        for (const [key, list] of result.problems) addProblems(key, list);
        noLocal.internal += result.noLocalEndpoints.internal;
        noLocal.external += result.noLocalEndpoints.external;
        for (const [kind, count] of Object.entries(result.counts)) metrics.rules.set({ family, kind }, count);
        await this.clearStaleUdpFlows(family, state);
      }
    } catch (error) {
      this.syncs++;
      this.needFullSync = true;
      if (backend.mode === 'nftables') metrics.nftablesSyncFailures.inc();
      else metrics.iptablesRestoreFailures.inc();
      this.deps.log(`sync failed (a full sync follows within ${Math.round(settings.iptablesSyncPeriod / 1000)}s): ${(error as Error).message}`);
      this.pendingTriggers.push(...triggers);
      this.runner.retryAfter(settings.iptablesSyncPeriod);
      return;
    } finally {
      const seconds = (Date.now() - started) / 1000;
      metrics.syncDuration.observe(seconds);
      (full ? metrics.syncFullDuration : metrics.syncPartialDuration).observe(seconds);
    }
    this.syncs++;
    if (full) {
      this.needFullSync = false;
      this.lastFullSync = started;
    }
    health.updated();
    metrics.lastSync.setToCurrentTime();
    metrics.noLocalEndpoints.set({ traffic_policy: 'internal' }, noLocal.internal);
    metrics.noLocalEndpoints.set({ traffic_policy: 'external' }, noLocal.external);
    const done = Date.now();
    for (const trigger of triggers) if (done >= trigger) metrics.networkProgramming.observe((done - trigger) / 1000);
    const warning = warnings.join('; ');
    if (warning && warning !== this.lastWarning) this.deps.log(warning);
    this.lastWarning = warning;
    this.reportProblems(services, problems);
  }

  private reportProblems(services: readonly Service[], problems: ProblemsByService): void {
    const { events } = this.deps;
    this.eventsDone = this.eventsDone.then(async () => {
      for (const service of services) {
        await events.report(service, problems.get(`${service.metadata?.namespace}/${service.metadata?.name}`) ?? []);
      }
    });
  }

  private async clearStaleUdpFlows(family: IpFamily, state: ProxyState): Promise<void> {
    const after = udpSnapshot(state);
    const before = this.udpBefore.get(family);
    this.udpBefore.set(family, after);
    if (!before) return;
    const deletions = staleUdpDeletions(before, after);
    if (deletions.length === 0) return;
    if (!this.deps.conntrack) {
      if (!this.warnedNoConntrack)
        this.deps.log('the conntrack command is missing: stale UDP flows to removed endpoints age out on their own (Debian: apt-get install conntrack)');
      this.warnedNoConntrack = true;
      return;
    }
    for (const failure of await deleteFlows(this.deps.conntrack, deletions, family)) this.deps.log(failure);
  }
}
