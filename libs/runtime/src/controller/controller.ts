import type { Client } from '@svc/client';
import {
  RateLimitingQueue,
  type KubeObject,
  type RateLimiter,
  type ResourceEventHandlerRegistration,
  type SharedInformer,
  type SharedInformerFactory,
} from '@svc/informers';
import type { Registry } from 'prom-client';
import type { ReconcilerOptions, WatchOptions } from '../decorators/reconciler.decorator';
import { passesAll, type Predicate, type PredicateEvent } from '../reconcile/predicates';
import type { Reconcile } from '../reconcile/reconcile';
import { requestFromKey, requestKey, type Request, type Result } from '../reconcile/request';
import { resolveResource, resourceId, type ResourceRef } from '../reconcile/resource-ref';
import { informerForResource } from './informer-for-resource';
import { ControllerMetrics, type ReconcileOutcome } from './controller-metrics';
import type { TrackedWrite, WriteTracker } from './write-tracker';

export interface ControllerLogger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

export const consoleControllerLogger: ControllerLogger = {
  info: (message) => console.log(message),
  error: (message, error) => console.error(message, error instanceof Error ? error.message : (error ?? '')),
};

export interface ControllerDependencies {
  client: Client;
  informers: SharedInformerFactory;
  registry: Registry;
  tracker: WriteTracker;
  logger?: ControllerLogger;
  /** Per-key backoff of errors and `requeue`; client-go's default controller limiter when absent. */
  rateLimiter?: () => RateLimiter<string>;
  /** Workers, overriding the reconciler's `concurrency` option (a process flag such as `--concurrent-*-syncs`). */
  concurrency?: number;
  /** How long a reconcile waits for the caches to show its key's own writes. Default 5000. */
  readYourWritesTimeoutMs?: number;
}

interface Source {
  informer: SharedInformer<KubeObject>;
  toRequests: (obj: KubeObject) => Request[];
  predicates?: readonly Predicate[];
  /** Wait this long (ms) before the requests are enqueued; 0 or absent: at once. */
  delayMs?: number;
}

/**
 * One reconciler at work: its sources (informers from the shared factory) feed a rate-limiting
 * queue of keys, and `concurrency` workers reconcile them. The queue hands a key to one worker at
 * a time, so no key is ever reconciled twice at once. Start and stop may alternate (leadership).
 */
export class Controller {
  readonly name: string;
  readonly concurrency: number;
  private readonly logger: ControllerLogger;
  private readonly metrics: ControllerMetrics;
  private readonly forId: string;
  private readonly forInformer: SharedInformer<KubeObject>;
  private readonly sources: Source[] = [];
  /** The informer of each resource this controller reads, by resource id. */
  private readonly cachesById = new Map<string, SharedInformer<KubeObject>>();
  /**
   * The writes each key's last reconcile made to resources this controller watches and that its
   * caches have not shown yet: the next reconcile of the key waits for them (expectations), so a
   * reconciler never acts twice on a stale view of its own creates and deletes.
   */
  private readonly unseenWrites = new Map<string, TrackedWrite[]>();
  private queue: RateLimitingQueue<string> | undefined;
  private registrations: ResourceEventHandlerRegistration[] = [];
  private workers: Promise<void>[] = [];
  private abort = new AbortController();

  constructor(
    readonly reconciler: Reconcile,
    readonly options: ReconcilerOptions,
    private readonly deps: ControllerDependencies,
  ) {
    this.name = options.name ?? reconciler.constructor.name;
    this.concurrency = Math.max(1, deps.concurrency ?? options.concurrency ?? 1);
    this.logger = deps.logger ?? consoleControllerLogger;
    this.metrics = ControllerMetrics.of(deps.registry);
    this.metrics.register(this.name, this.concurrency);

    const scheme = deps.client.scheme;
    const forInfo = resolveResource(options.for, scheme);
    this.forId = resourceId(forInfo);
    deps.tracker.track(this.forId);
    this.forInformer = this.informerFor(options.for);
    this.sources.push({
      informer: this.forInformer,
      toRequests: (obj) => [requestOf(obj)],
      predicates: options.predicates,
    });
    const ownerGroup = forInfo.group;
    const ownerKind = forInfo.kind ?? (options.for as { kind?: string }).kind;
    for (const owned of options.owns ?? []) {
      this.sources.push({
        informer: this.informerFor(owned),
        toRequests: (obj) => controllerOwnerRequests(obj, ownerGroup, ownerKind, forInfo.namespaced),
      });
    }
    for (const watch of options.watches ?? []) {
      const mapped = watch as unknown as WatchOptions<KubeObject, Reconcile>;
      this.sources.push({
        informer: this.informerFor(mapped.resource),
        toRequests: (obj) => mapped.mapTo(obj, reconciler),
        predicates: mapped.predicates,
        delayMs: mapped.delay?.(reconciler),
      });
    }
  }

  /** The informers this controller reads, for the manager's sync and health checks. */
  informers(): SharedInformer<KubeObject>[] {
    return [...new Set(this.sources.map((s) => s.informer))];
  }

  get running(): boolean {
    return this.queue !== undefined && !this.queue.shuttingDown();
  }

  /** Number of keys waiting (not delayed, not in flight); undefined while stopped. */
  queueLength(): number | undefined {
    return this.queue?.len();
  }

  /**
   * Starts the workers. Handlers are added to the (already synced) informers now, so every cached
   * object is enqueued once: the reconciler starts from the whole current state.
   */
  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    const queue = new RateLimitingQueue<string>({
      name: this.name,
      registry: this.deps.registry,
      rateLimiter: this.deps.rateLimiter?.(),
    });
    this.queue = queue;
    for (const source of this.sources) {
      const enqueue = (event: PredicateEvent, obj: KubeObject) => {
        if (!passesAll(source.predicates, event)) return;
        for (const request of source.toRequests(obj)) {
          // A delayed key already waiting keeps its earlier time, so changes within the period make one reconcile.
          if (source.delayMs) queue.addAfter(requestKey(request), source.delayMs);
          else queue.add(requestKey(request));
        }
      };
      this.registrations.push(
        source.informer.addEventHandler({
          onAdd: (obj) => enqueue({ type: 'create', object: obj }, obj),
          onUpdate: (oldObj, newObj) => {
            const event: PredicateEvent = { type: 'update', object: newObj, oldObject: oldObj };
            enqueue(event, newObj);
            // An owned object that changed owner must also wake its former owner.
            if (source.informer !== this.forInformer) enqueue(event, oldObj);
          },
          onDelete: (obj) => enqueue({ type: 'delete', object: obj }, obj),
        }),
      );
    }
    this.workers = Array.from({ length: this.concurrency }, () => this.work(queue));
    this.logger.info(`controller ${this.name}: started ${this.concurrency} worker(s)`);
  }

  /**
   * Stops taking work and waits up to `graceMs` for reconciles in flight; then aborts their
   * signal and returns (a reconcile that ignores the signal finishes on its own later).
   */
  async stop(graceMs = 30_000): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    for (const registration of this.registrations) registration.remove();
    this.registrations = [];
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      queue.shutDownWithDrain().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.logger.error(`controller ${this.name}: reconciles still running after ${graceMs} ms, abandoning them`);
      this.abort.abort(new Error('controller stopped'));
      queue.shutDown();
    } else {
      await Promise.all(this.workers);
    }
    this.workers = [];
    this.queue = undefined;
    this.logger.info(`controller ${this.name}: stopped`);
  }

  private informerFor(ref: ResourceRef): SharedInformer<KubeObject> {
    const informer = informerForResource(this.deps.informers, this.deps.client, ref as ResourceRef<KubeObject>, this.options.namespace);
    this.cachesById.set(resourceId(resolveResource(ref, this.deps.client.scheme)), informer);
    return informer;
  }

  private rememberWrites(key: string, writes: TrackedWrite[]): void {
    const watched = writes.filter((w) => this.cachesById.has(w.resourceId));
    if (watched.length > 0) this.unseenWrites.set(key, watched);
  }

  /** Waits (bounded) until the caches show this key's own last write and its last reconcile's writes. */
  private async awaitOwnWrites(key: string): Promise<void> {
    const timeoutMs = this.deps.readYourWritesTimeoutMs ?? 5_000;
    const waits: Promise<unknown>[] = [];
    const wanted = this.deps.tracker.get(this.forId, key);
    if (wanted !== undefined) {
      waits.push(
        this.forInformer.waitForResourceVersion(key, wanted, timeoutMs).then((seen) => {
          if (seen) this.deps.tracker.settle(this.forId, key, wanted);
        }),
      );
    }
    const writes = this.unseenWrites.get(key);
    if (writes) {
      this.unseenWrites.delete(key);
      for (const w of writes) waits.push(this.cachesById.get(w.resourceId)!.waitForResourceVersion(w.objectKey, w.resourceVersion, timeoutMs));
    }
    await Promise.all(waits);
  }

  private async work(queue: RateLimitingQueue<string>): Promise<void> {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      try {
        await this.processKey(queue, next.key);
      } catch (error) {
        // processKey handles the reconciler's errors; anything here is the framework's own, and
        // must neither kill the worker nor lose the key.
        this.logger.error(`controller ${this.name}: processing ${next.key} failed`, error);
        queue.addRateLimited(next.key);
      } finally {
        queue.done(next.key);
      }
    }
  }

  private async processKey(queue: RateLimitingQueue<string>, key: string): Promise<void> {
    await this.awaitOwnWrites(key);
    const labels = { controller: this.name };
    const endTimer = this.metrics.time.startTimer(labels);
    this.metrics.active.inc(labels);
    let outcome: ReconcileOutcome;
    const writes: TrackedWrite[] = [];
    try {
      const result = await this.deps.tracker.collect(
        writes,
        async () =>
          (await this.reconciler.reconcile(requestFromKey(key), {
            controller: this.name,
            client: this.deps.client,
            signal: this.abort.signal,
          })) as Result | undefined,
      );
      if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfter);
        outcome = 'requeue_after';
      } else if (result?.requeue) {
        queue.addRateLimited(key);
        outcome = 'requeue';
      } else {
        queue.forget(key);
        outcome = 'success';
      }
    } catch (error) {
      outcome = 'error';
      this.metrics.errors.inc(labels);
      this.logger.error(`controller ${this.name}: reconcile of ${key} failed (retry ${queue.numRequeues(key) + 1})`, error);
      queue.addRateLimited(key);
    } finally {
      this.rememberWrites(key, writes);
      this.metrics.active.dec(labels);
      endTimer();
    }
    this.metrics.total.inc({ ...labels, result: outcome });
  }
}

function requestOf(obj: KubeObject): Request {
  const name = obj.metadata?.name ?? '';
  return obj.metadata?.namespace ? { namespace: obj.metadata.namespace, name } : { name };
}

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  controller?: boolean;
}

/** The request of `obj`'s controller owner when it is of the owner kind; none otherwise. */
export function controllerOwnerRequests(obj: KubeObject, ownerGroup: string, ownerKind: string | undefined, ownerNamespaced: boolean): Request[] {
  const refs = (obj.metadata as { ownerReferences?: OwnerRef[] } | undefined)?.ownerReferences ?? [];
  const ref = refs.find((r) => r.controller === true);
  if (!ref?.name || !ref.apiVersion) return [];
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  if (group !== ownerGroup || (ownerKind !== undefined && ref.kind !== ownerKind)) return [];
  return ownerNamespaced && obj.metadata?.namespace ? [{ namespace: obj.metadata.namespace, name: ref.name }] : [{ name: ref.name }];
}
