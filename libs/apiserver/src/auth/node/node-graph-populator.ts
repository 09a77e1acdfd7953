import { persistentVolumeClaimDefinition, podDefinition, volumeAttachmentDefinition, type KindDefinition } from '@svc/api';
import type { ResourceRegistries } from '../../registry/registries';
import type { ResourceWatch } from '../../registry/types';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../watchcache';
import type { NodeGraph } from './node-graph';

// After a watch ends, the next one starts this long later (growing to the maximum while they keep failing).
const RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

interface Followed {
  /** The kind followed, whose registry is looked up by its definition (a kind not served is never referenced). */
  definition: KindDefinition;
  reset(objects: readonly unknown[]): void;
  set(object: unknown): void;
  remove(object: unknown): void;
}

/**
 * Keeps a NodeGraph from the API server's own watches of pods, claims and volume attachments (through the registries, so
 * from the watch cache when there is one): each watch starts with the full state, which replaces the
 * graph's at the bookmark ending it, then applies every change. A watch that ends is opened again.
 */
export class NodeGraphPopulator {
  private stopped = false;
  private readonly watches = new Set<ResourceWatch>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly synced = new Set<string>();
  private readonly followed: Followed[];
  private syncWaiters: Array<() => void> = [];

  constructor(
    private readonly registries: ResourceRegistries,
    graph: NodeGraph,
  ) {
    this.followed = [
      { definition: podDefinition, reset: (o) => graph.resetPods(o), set: (o) => graph.setPod(o), remove: (o) => graph.deletePod(o) },
      {
        definition: persistentVolumeClaimDefinition,
        reset: (o) => graph.resetClaims(o),
        set: (o) => graph.setClaim(o),
        remove: (o) => graph.deleteClaim(o),
      },
      {
        definition: volumeAttachmentDefinition,
        reset: (o) => graph.resetVolumeAttachments(o),
        set: (o) => graph.setVolumeAttachment(o),
        remove: (o) => graph.deleteVolumeAttachment(o),
      },
    ];
  }

  /** Whether every watch delivered its initial state once. */
  get hasSynced(): boolean {
    return this.synced.size === this.followed.length;
  }

  start(): void {
    for (const followed of this.followed) void this.follow(followed, 0);
  }

  /** Resolves once synced. */
  whenSynced(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const watch of this.watches) watch.stop();
    this.watches.clear();
  }

  private async follow(followed: Followed, failures: number): Promise<void> {
    if (this.stopped) return;
    const registry = this.registries.kind(followed.definition);
    if (registry === undefined) {
      // Not served here: nothing can reference it.
      this.markSynced(followed.definition.resource);
      return;
    }
    let delivered = false;
    try {
      const watch = await registry.watch('', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
      if (this.stopped) {
        watch.stop();
        return;
      }
      delivered = await this.consume(watch, followed);
    } catch {
      // Retried below, like an ended watch.
    }
    if (this.stopped) return;
    this.retry(followed, delivered ? 0 : failures + 1);
  }

  /**
   * Hands a watch's events to the graph until it ends: the initial ones at once when the bookmark
   * that ends them comes (the resource is then synced), the rest as they come. True when the initial
   * events were delivered before it ended, whether it ended well or not.
   */
  private async consume(watch: ResourceWatch, followed: Followed): Promise<boolean> {
    this.watches.add(watch);
    const initial: unknown[] = [];
    let live = false;
    try {
      for await (const event of watch) {
        if (this.stopped || event.type === 'ERROR') break;
        if (event.type === 'BOOKMARK') {
          if (!live && event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
            live = true;
            followed.reset(initial);
            initial.length = 0;
            this.markSynced(followed.definition.resource);
          }
        } else if (!live) {
          if (event.type !== 'DELETED') initial.push(event.object);
        } else if (event.type === 'DELETED') followed.remove(event.object);
        else followed.set(event.object);
      }
    } catch {
      // An ended watch: the caller follows again.
    } finally {
      this.watches.delete(watch);
      watch.stop();
    }
    return live;
  }

  /** Follows the resource again after a backoff that grows with the failures in a row. */
  private retry(followed: Followed, failures: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.follow(followed, failures);
      },
      Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(failures, 5)),
    );
    timer.unref();
    this.timers.add(timer);
  }

  private markSynced(resource: string): void {
    this.synced.add(resource);
    if (!this.hasSynced) return;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
