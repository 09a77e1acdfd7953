import type { KubeObject } from './kube-object';
import type { ListerWatcher } from './lister-watcher';
import { consoleInformerLogger, type InformerLogger } from './logger';
import { SharedInformer, type SharedInformerOptions } from './shared-informer';

/**
 * What an informer watches: a resource (any stable name, e.g. `apps/v1/deployments`, or
 * `v1/pods` for the core group) and optionally one namespace and selectors. Two requests for the
 * same description share one informer.
 */
export interface InformerResource {
  resource: string;
  /** Unset or empty: all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** The factory's key of a resource description; a plain string is the resource over all namespaces. */
export function informerKey(resource: string | InformerResource): string {
  const r = typeof resource === 'string' ? { resource } : resource;
  let key = r.resource;
  if (r.namespace) key += ` namespace=${r.namespace}`;
  if (r.labelSelector) key += ` labels=${r.labelSelector}`;
  if (r.fieldSelector) key += ` fields=${r.fieldSelector}`;
  return key;
}

export interface SharedInformerFactoryOptions {
  /**
   * Resync period of informers created without one (`--min-resync-period`): each informer resyncs
   * after a random time in [p, 2p), drawn anew each time. 0 or unset: no resync.
   */
  defaultResyncPeriodMs?: number;
  /** Defaults for every informer's reflector (liveness, backoff, page size, ...). */
  informerDefaults?: Omit<SharedInformerOptions<KubeObject>, 'indexers' | 'keyFunc' | 'name' | 'resyncPeriodMs'>;
  logger?: InformerLogger;
}

/** The health of one informer, for readiness checks. */
export interface InformerHealth {
  key: string;
  synced: boolean;
  healthy: boolean;
  lastError?: Error;
}

/**
 * One informer per watched resource, however many controllers ask for it (client-go's
 * SharedInformerFactory). Informers can be added and removed while the factory runs: one requested
 * after `start()` starts at once, and `stopInformer` stops one and frees its cache.
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private readonly logger: InformerLogger;
  private started = false;
  private shutDown = false;

  constructor(private readonly options: SharedInformerFactoryOptions = {}) {
    this.logger = options.logger ?? consoleInformerLogger;
  }

  /**
   * The informer of `resource`, created with `listerWatcherFactory` and `options` on first request.
   * Later requests get the same informer; their `options` are ignored except `indexers`, of which
   * those not yet present are added (an index name already present is taken to be the same index).
   */
  informerFor<T extends KubeObject>(
    resource: string | InformerResource,
    listerWatcherFactory: () => ListerWatcher<T>,
    options: SharedInformerOptions<T> = {},
  ): SharedInformer<T> {
    if (this.shutDown) throw new Error('the informer factory is shut down');
    const key = informerKey(resource);
    const existing = this.informers.get(key) as SharedInformer<T> | undefined;
    if (existing !== undefined) {
      const present = new Set(existing.indexer.indexNames());
      const missing = Object.entries(options.indexers ?? {}).filter(([name]) => !present.has(name));
      if (missing.length > 0) existing.addIndexers(Object.fromEntries(missing));
      return existing;
    }
    const informer = new SharedInformer<T>(listerWatcherFactory(), {
      logger: this.logger,
      resyncPeriodMs: this.options.defaultResyncPeriodMs,
      ...(this.options.informerDefaults as SharedInformerOptions<T> | undefined),
      ...options,
      name: options.name ?? key,
    });
    this.informers.set(key, informer as unknown as SharedInformer<KubeObject>);
    if (this.started) informer.start();
    return informer;
  }

  /** The informer of `resource`, if one was requested. */
  get<T extends KubeObject>(resource: string | InformerResource): SharedInformer<T> | undefined {
    return this.informers.get(informerKey(resource)) as SharedInformer<T> | undefined;
  }

  /** Keys of the informers held. */
  keys(): string[] {
    return [...this.informers.keys()];
  }

  /** Starts every informer held, and from now on every new one at once. */
  start(): void {
    if (this.shutDown) throw new Error('the informer factory is shut down');
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /**
   * Waits until every informer held now has synced, or `timeoutMs` passed (when given); reports
   * each one's outcome by key.
   */
  async waitForCacheSync(timeoutMs?: number): Promise<Record<string, boolean>> {
    const entries = [...this.informers.entries()];
    const results = await Promise.all(entries.map(([, informer]) => informer.whenSynced(timeoutMs)));
    return Object.fromEntries(entries.map(([key], i) => [key, results[i]]));
  }

  /** Stops the informer of `resource` and frees its cache; false when there was none. */
  async stopInformer(resource: string | InformerResource): Promise<boolean> {
    const key = informerKey(resource);
    const informer = this.informers.get(key);
    if (informer === undefined) return false;
    this.informers.delete(key);
    await informer.stop();
    return true;
  }

  /** Stops every informer; the factory accepts no more requests. */
  async shutdown(): Promise<void> {
    this.shutDown = true;
    const all = [...this.informers.values()];
    this.informers.clear();
    await Promise.all(all.map((informer) => informer.stop()));
  }

  /** Each informer's health: readiness is the AND of `healthy`. */
  health(): InformerHealth[] {
    return [...this.informers.entries()].map(([key, informer]) => ({
      key,
      synced: informer.hasSynced(),
      healthy: informer.healthy(),
      ...(informer.lastError && !informer.healthy() ? { lastError: informer.lastError } : {}),
    }));
  }
}
