import { errorMessage } from '@svc/machinery';
import type { ApiObject } from '@svc/api';
import { Client, type ServedResource } from '@svc/client';
import type { ResourceEventHandlerRegistration } from '@svc/informers';
import type { ControllerManagerOptions } from '@svc/options';
import { consoleControllerLogger, EventRecorder, Manager, metadataOnly, resourceId, Runnable, type ResourceRef } from '@svc/runtime';
import { deletableResources, groupVersionOf } from './deletable-resources';
import { DependencyGraph } from './dependency-graph';
import { GarbageCollectorReconciler } from './garbage-collector-reconciler';
import { SyncGate } from './sync-gate';

/** How often served resource types are rediscovered (Kubernetes' garbage collector sync period). */
export const RESOURCE_RESYNC_PERIOD_MS = 30_000;
/** How long after a CustomResourceDefinition changes its group is rediscovered (changes come in bursts). */
const CRD_RESYNC_DELAY_MS = 100;
const CONTROLLER_PREFIX = 'garbagecollector-';

/** The name of the controller that monitors `resource`: `garbagecollector-deployments.apps`, `garbagecollector-configmaps`. */
export function monitorName(resource: Pick<ServedResource, 'group' | 'resource'>): string {
  return `${CONTROLLER_PREFIX}${resource.resource}${resource.group ? `.${resource.group}` : ''}`;
}

function isCrdResource(resource: ServedResource): boolean {
  return resource.resource === 'customresourcedefinitions' && resource.group.startsWith('apiextensions.');
}

/** What the garbage collector takes from the flags. */
export class GarbageCollectorOptions {
  constructor(
    /** `--concurrent-gc-syncs`: syncs at once over every monitored type. */
    readonly workers = 20,
  ) {}

  static fromFlags(flags: Pick<ControllerManagerOptions, 'concurrentGcSyncs'>): GarbageCollectorOptions {
    return new GarbageCollectorOptions(Math.max(1, flags.concurrentGcSyncs));
  }
}

/**
 * Kubernetes' garbage collector on the framework. Every resource type the server serves with list,
 * watch and delete (custom ones included, events excluded) is monitored by one controller of the
 * manager, `garbagecollector-<resource>[.<group>]`, whose informer is the shared one and whose
 * requests name objects by uid. All of them run the same reconciler; `--concurrent-gc-syncs`
 * bounds the syncs running at once over all of them. The types are rediscovered every 30 s and
 * whenever a CustomResourceDefinition changes, and monitors are added or removed to match. The
 * discovery runs whether this process leads or not, so a standby's caches are warm when it takes
 * over; the monitors' reconciles run only while it leads, as every controller's.
 */
@Runnable({ name: 'garbagecollector', leaderElection: false })
export class GarbageCollector implements Runnable {
  readonly graph = new DependencyGraph();
  private readonly logger = consoleControllerLogger;
  private readonly reconciler: GarbageCollectorReconciler;
  private readonly workers: number;
  private readonly crdHandlers = new Map<string, ResourceEventHandlerRegistration>();
  private timer: NodeJS.Timeout | undefined;
  private crdTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly manager: Manager,
    private readonly client: Client,
    options: GarbageCollectorOptions,
  ) {
    this.workers = options.workers;
    const events = new EventRecorder(client, {
      component: 'garbage-collector-controller',
      onError: (error) => this.logger.error(`garbagecollector: recording an event failed: ${errorMessage(error)}`),
    });
    this.reconciler = new GarbageCollectorReconciler(this.graph, client, new SyncGate(this.workers), events);
  }

  /** Discovers the resource types to monitor now and every resync period, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.stopped = false;
    await this.resync();
    this.timer = setInterval(() => void this.resync(), RESOURCE_RESYNC_PERIOD_MS);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.crdTimer);
    for (const registration of this.crdHandlers.values()) registration.remove();
    this.crdHandlers.clear();
    await this.syncing;
  }

  /**
   * Rediscovers the served resource types and starts or stops monitors to match (serialised; a
   * call while one waits to run shares it). `removeVanished: false` only adds: a type that has just
   * gone (its CRD terminating) keeps its watch a while, so the deletions of its objects still wake
   * their dependents; the periodic resync removes it.
   */
  resync(options: { removeVanished?: boolean } = {}): Promise<void> {
    if (this.queued && options.removeVanished === false) return this.queued;
    const run = this.syncing.then(async () => {
      if (this.queued === run) this.queued = undefined;
      try {
        await this.syncMonitors(options.removeVanished ?? true);
      } catch (error) {
        this.logger.error(`garbagecollector: resource discovery failed, monitors unchanged: ${errorMessage(error)}`);
      }
    });
    this.queued = run;
    this.syncing = run;
    return run;
  }

  /** The manager's controllers that monitor resource types. */
  monitorNames(): string[] {
    return this.manager
      .getControllers()
      .map((c) => c.name)
      .filter((name) => name.startsWith(CONTROLLER_PREFIX));
  }

  private async syncMonitors(removeVanished: boolean): Promise<void> {
    if (this.stopped) return;
    const { resources, failed } = await this.client.discoverResources();
    // Kubernetes skips a sync that found nothing rather than stop watching everything.
    if (resources.length === 0) return;
    const failedGroupVersions = new Set(failed);
    this.graph.setKinds(resources, failedGroupVersions);
    const wanted = new Map(deletableResources(resources).map((r) => [resourceId(r), r] as const));
    // A group version that could not be read keeps its monitors, as in Kubernetes' partial discovery.
    for (const [id, r] of this.graph.watched()) if (failedGroupVersions.has(groupVersionOf(r)) && !wanted.has(id)) wanted.set(id, r);
    if (removeVanished) {
      for (const [id, r] of this.graph.watched()) if (!wanted.has(id)) await this.stopMonitor(id, r);
      this.graph.prune();
    }
    for (const [id, r] of wanted) if (!this.graph.isWatched(id)) this.startMonitor(id, r);
  }

  private startMonitor(id: string, resource: ServedResource): void {
    if (this.stopped) return;
    // Metadata is all the collector reads, so it caches only that (as Kubernetes' does), unless
    // another controller already caches the resource in full: then it shares that cache and watch.
    const ref: ResourceRef<ApiObject> = this.manager.informers.get(id) ? resource : metadataOnly<ApiObject>(resource);
    const informer = this.manager.informerFor<ApiObject>(ref);
    this.graph.watch(id, resource, informer);
    try {
      this.manager.add(this.reconciler, {
        name: monitorName(resource),
        for: ref,
        // Requests come from the watch below and name objects by uid, not by namespace/name.
        predicates: [() => false],
        watches: [{ resource: ref, mapTo: (obj) => this.graph.wakeups(resource, obj).map((uid) => ({ name: uid })) }],
        concurrency: this.workers,
      });
    } catch (error) {
      // The manager is between states (starting or stopping): the next resync tries again.
      this.graph.unwatch(id);
      this.logger.error(`garbagecollector: monitoring ${id} did not start: ${errorMessage(error)}`);
      return;
    }
    if (isCrdResource(resource)) {
      this.crdHandlers.set(
        id,
        informer.addEventHandler({
          onAdd: (crd, info) => {
            // A definition in the cache's first list may have been made after the discovery that
            // started this monitor (between its answer and this list), and no later event would say
            // so: its kind would wait for the periodic rediscovery, its dependents unresolved.
            if (!info.isInInitialList || !this.servesDefinedResource(crd)) this.resyncSoon();
          },
          onUpdate: (oldObj, newObj) => {
            if (oldObj !== newObj) this.resyncSoon();
          },
          onDelete: () => this.resyncSoon(),
        }),
      );
    }
  }

  private async stopMonitor(id: string, resource: ServedResource): Promise<void> {
    this.graph.unwatch(id);
    this.crdHandlers.get(id)?.remove();
    this.crdHandlers.delete(id);
    await this.manager.remove(monitorName(resource));
  }

  /** Whether the resource a CustomResourceDefinition defines (its name is `<plural>.<group>`) is known served. */
  private servesDefinedResource(crd: ApiObject): boolean {
    const name = crd.metadata?.name ?? '';
    const dot = name.indexOf('.');
    return dot > 0 && this.graph.serves(name.slice(dot + 1), name.slice(0, dot));
  }

  private resyncSoon(): void {
    if (this.stopped) return;
    clearTimeout(this.crdTimer);
    this.crdTimer = setTimeout(() => void this.resync({ removeVanished: false }), CRD_RESYNC_DELAY_MS);
    this.crdTimer.unref();
  }
}
