import { jitteredPeriod } from './backoff';
import type { Delta } from './delta';
import type { ResourceEventHandler, ResourceEventHandlerRegistration } from './event-handler';
import { Indexer, type IndexerOptions, type Indexers } from './indexer';
import type { KubeObject } from './kube-object';
import { Lister } from './lister';
import type { ListerWatcher } from './lister-watcher';
import { consoleInformerLogger, type InformerLogger } from './logger';
import { ProcessorListener } from './processor-listener';
import { Reflector, type ReflectorOptions } from './reflector';
import { informerClock } from './informer-clock';
import type { QueueClock, QueueTimer } from './workqueue';

export interface SharedInformerOptions<T> extends ReflectorOptions, IndexerOptions<T> {
  /**
   * Every handler gets onUpdate(obj, obj) for every cached object once per period, the period drawn
   * anew from [p, 2p) each time (`--min-resync-period` semantics). 0 or unset: no resync.
   */
  resyncPeriodMs?: number;
}

/**
 * One reflector, one cache and any number of handlers (client-go's sharedIndexInformer). Handlers
 * may be added before or after start; a late one first gets an add for every cached object.
 */
export class SharedInformer<T extends KubeObject> {
  readonly indexer: Indexer<T>;
  private readonly reflector: Reflector<T>;
  private readonly listeners = new Set<ProcessorListener<T>>();
  private readonly name: string;
  private readonly logger: InformerLogger;
  private readonly clock: QueueClock;
  private readonly random: () => number;
  private readonly resyncPeriodMs: number;
  private resyncTimer: QueueTimer | undefined;
  private syncWaiters: ((synced: boolean) => void)[] = [];
  private started = false;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private handlerCount = 0;

  constructor(listerWatcher: ListerWatcher<T>, options: SharedInformerOptions<T> = {}) {
    this.name = options.name ?? 'informer';
    this.logger = options.logger ?? consoleInformerLogger;
    this.clock = options.clock ?? informerClock;
    this.random = options.random ?? Math.random;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.indexer = new Indexer<T>(options);
    this.reflector = new Reflector<T>(
      listerWatcher,
      this.indexer,
      { onDelta: (delta) => this.distribute(delta), onSynced: () => this.onSynced() },
      { ...options, name: this.name, logger: this.logger, clock: this.clock, random: this.random },
    );
  }

  /** Starts the reflector; a no-op when started or stopped. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.reflector.start();
  }

  /** Stops the reflector and every handler, and frees the cache (pending read-your-writes waits end false). */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  get isStarted(): boolean {
    return this.started;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The first list has filled the cache. */
  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** Resolves true once synced; false after `timeoutMs` (if given) or when the informer stops first. */
  whenSynced(timeoutMs?: number): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: QueueTimer | undefined;
      const waiter = (synced: boolean) => {
        timer?.cancel();
        resolve(synced);
      };
      this.syncWaiters.push(waiter);
      if (timeoutMs !== undefined) {
        timer = this.clock.setTimeout(() => {
          this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs);
      }
    });
  }

  /** Synced and watching; false while a failed or stalled watch is being replaced (see Reflector.healthy). */
  healthy(): boolean {
    return this.reflector.healthy();
  }

  get lastError(): Error | undefined {
    return this.reflector.lastError;
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** Number of lists done (1 after the first sync; each relist adds one). */
  get listCount(): number {
    return this.reflector.listCount;
  }

  /** Adds indexes to the cache, before or after start. */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** A read-only view of the cache. */
  lister(): Lister<T> {
    return new Lister(this.indexer);
  }

  /**
   * Read-your-writes: resolves true once the cache holds `key` at `resourceVersion` or newer, or
   * has seen that revision at all (a deletion, or a later change of anything); false after
   * `timeoutMs` or when the informer stops.
   */
  waitForResourceVersion(key: string, resourceVersion: string, timeoutMs: number): Promise<boolean> {
    return this.indexer.waitForKeyResourceVersion(key, resourceVersion, timeoutMs);
  }

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    if (this.stopped) throw new Error(`${this.name}: cannot add a handler to a stopped informer`);
    const listener = new ProcessorListener<T>(handler, this.logger, `${this.name} handler ${++this.handlerCount}`);
    // Single-threaded: the snapshot and the registration happen with no event in between, so the
    // late handler sees every object exactly once, then every later change.
    for (const object of this.indexer.list()) listener.add({ type: 'added', object, isInInitialList: true });
    if (this.hasSynced()) listener.markSyncPoint();
    this.listeners.add(listener);
    return {
      hasSynced: () => listener.hasSynced(),
      pending: () => listener.pending(),
      remove: () => {
        listener.remove();
        this.listeners.delete(listener);
      },
    };
  }

  private distribute(delta: Delta<T>): void {
    for (const listener of this.listeners) listener.add(delta);
  }

  private onSynced(): void {
    for (const listener of this.listeners) listener.markSyncPoint();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const resolve of waiters) resolve(true);
    this.scheduleResync();
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(
      () => {
        for (const object of this.indexer.list()) this.distribute({ type: 'sync', object });
        this.scheduleResync();
      },
      jitteredPeriod(this.resyncPeriodMs, this.random),
    );
  }

  private async doStop(): Promise<void> {
    this.stopped = true;
    this.resyncTimer?.cancel();
    await this.reflector.stop();
    for (const listener of this.listeners) listener.remove();
    this.listeners.clear();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const resolve of waiters) resolve(false);
    this.indexer.close();
  }
}
