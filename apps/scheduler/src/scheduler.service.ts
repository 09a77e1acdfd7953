import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Namespace, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, StorageClass } from '@svc/api';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { listerWatcherFor, type ResourceEventHandler, type SharedInformer } from '@svc/informers';
import { consoleControllerLogger, Manager } from '@svc/runtime';
import { SchedulerCache } from './cache/scheduler-cache';
import { nodeEventHandler, podEventHandler } from './event-handlers';
import { EventSink } from './event-sink';
import { Framework } from './framework/framework';
import { VolumeAssumeCache } from './cache/volume-assume-cache';
import { DEFAULT_SCORERS, filtersWithVolumeBinding } from './plugins/default-plugins';
import { VolumeBinding } from './plugins/volume-binding';
import type { ClusterEvent } from './queue/cluster-event';
import { DefaultPreemption } from './preemption/default-preemption';
import { SchedulingQueue } from './queue/scheduling-queue';
import { Scheduler } from './scheduler';
import { SchedulerMetrics } from './scheduler-metrics';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from './scheduler-options';

/** Kubernetes' scheduler leaves finished pods out of its pod informer. */
export const UNFINISHED_PODS = 'status.phase!=Succeeded,status.phase!=Failed';

/**
 * The scheduler inside the framework's manager: its informers (unfinished pods, nodes, namespaces,
 * disruption budgets) feed the cache and the queue from start, leader or not, so that a standby that
 * takes over knows every pending pod; the scheduling loop is a leader-elected runnable.
 */
@Injectable()
export class SchedulerService implements OnModuleInit {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  readonly scheduler: Scheduler;
  private readonly pods: SharedInformer<Pod>;
  /** The volume binding's informers, whose changes may let waiting pods fit. */
  private readonly volumeInformers: Array<
    [SharedInformer<PersistentVolumeClaim> | SharedInformer<PersistentVolume> | SharedInformer<StorageClass>, ClusterEvent['resource']]
  >;

  constructor(
    private readonly manager: Manager,
    client: Client,
    @Inject(SCHEDULER_OPTIONS) private readonly options: SchedulerOptions,
  ) {
    const claims = manager.informerFor<PersistentVolumeClaim>(BUILTIN_RESOURCES.persistentVolumeClaims);
    const volumes = manager.informerFor<PersistentVolume>(BUILTIN_RESOURCES.persistentVolumes);
    const classes = manager.informerFor<StorageClass>(BUILTIN_RESOURCES.storageClasses);
    this.volumeInformers = [
      [claims, 'PersistentVolumeClaim'],
      [volumes, 'PersistentVolume'],
      [classes, 'StorageClass'],
    ];
    const volumeCache = new VolumeAssumeCache({
      claim: (namespace, name) => claims.lister().namespace(namespace).get(name),
      volume: (name) => volumes.lister().get(name),
      volumes: () => volumes.lister().list(),
      storageClass: (name) => classes.lister().get(name),
    });
    const volumeBinding = new VolumeBinding(volumeCache, client);
    const filters = filtersWithVolumeBinding(volumeBinding);
    this.queue = new SchedulingQueue({
      initialBackoffMs: options.podInitialBackoffSeconds * 1000,
      maxBackoffMs: options.podMaxBackoffSeconds * 1000,
      maxInUnschedulableMs: options.podMaxInUnschedulablePodsDuration,
      cures: (plugin, event) => filters.find((f) => f.name === plugin)?.curedBy(event) ?? true,
    });
    this.pods = manager.informers.informerFor<Pod>({ resource: 'v1/pods', fieldSelector: UNFINISHED_PODS }, () =>
      listerWatcherFor(client.pods, { fieldSelector: UNFINISHED_PODS }),
    );
    const namespaces = manager.informerFor<Namespace>(BUILTIN_RESOURCES.namespaces).lister();
    // Preemption reads the budgets to spare the pods they protect where it can, as Kubernetes' does.
    const budgets = manager.informerFor<PodDisruptionBudget>(BUILTIN_RESOURCES.podDisruptionBudgets).lister();
    const framework = new Framework(filters, DEFAULT_SCORERS, options.percentageOfNodesToScore, Math.random, [volumeBinding]);
    this.scheduler = new Scheduler({
      client,
      cache: this.cache,
      queue: this.queue,
      framework,
      preemption: new DefaultPreemption(framework, () => budgets.list()),
      events: new EventSink(client, options.schedulerName),
      metrics: new SchedulerMetrics(manager.registry, this.queue),
      currentPod: (namespace, name) => this.pods.lister().namespace(namespace).get(name),
      namespaceLabels: (name) => namespaces.get(name)?.metadata?.labels,
      schedulerName: options.schedulerName,
      logger: consoleControllerLogger,
    });
  }

  onModuleInit(): void {
    this.manager.informerFor(BUILTIN_RESOURCES.nodes).addEventHandler(nodeEventHandler(this.cache, this.queue));
    this.pods.addEventHandler(podEventHandler(this.cache, this.queue, this.options.schedulerName));
    for (const [informer, resource] of this.volumeInformers) (informer as SharedInformer<object>).addEventHandler(this.volumeEvents(resource));
    this.manager.addRunnable({ name: 'scheduler', run: (signal) => this.scheduler.run(signal) });
  }

  private volumeEvents(resource: ClusterEvent['resource']): ResourceEventHandler<object> {
    const move = (action: 'Add' | 'Update') => void this.queue.moveOnEvent({ resource, action } as ClusterEvent);
    return { onAdd: () => move('Add'), onUpdate: () => move('Update') };
  }
}
