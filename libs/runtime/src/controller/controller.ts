import { setMaxListeners } from 'node:events';
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { errorMessage } from '@svc/machinery';
import type { Client } from '@svc/client';
import {
  RateLimitingQueue,
  type KubeObject,
  type RateLimiter,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedInformer,
  type SharedInformerFactory,
} from '@svc/informers';
import type { Registry } from 'prom-client';
import type { ReconcilerOptions, WatchMapping } from '../decorators/reconciler.decorator';
import { passesAll, type Predicate, type PredicateEvent } from '../reconcile/predicates';
import type { Reconcile } from '../reconcile/reconcile';
import { requestFromKey, requestKey, type Request, type Result } from '../reconcile/request';
import { isTerminalError } from '../reconcile/terminal-error';
import { describeTrigger, TriggerLog, type ReconcileTrigger, type TriggerEvent, type TriggerType } from '../reconcile/trigger';
import { InformerCacheReader, type CacheReader } from '../reconcile/cache-reader';
import { prepareCaches } from '../reconcile/cache-declarations';
import { resolveResource, resourceId, type ResourceRef } from '../reconcile/resource-ref';
import { informerForResource } from './informer-for-resource';
import { ControllerMetrics, type ReconcileOutcome } from './controller-metrics';
import { Expectations, KeyExpectations } from './expectations';
import type { MetaObject } from '../helpers/object-shape';
import { getControllerOf } from '../helpers/owner-references';
import type { TrackedWrite, WriteTracker } from './write-tracker';
import { MAX_RECORDED_WRITES, ReconcileRecorder, recordedError, type ReconcileRecorderOptions, type ReconcileWrite } from './reconcile-recorder';

export interface ControllerLogger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
  /** One line per reconcile with its key and causes; not called when absent. */
  debug?(message: string): void;
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
  /**
   * Each reconcile published as an Event (see ReconcileRecorder) at this rate, or not at all when
   * false. On by default.
   */
  reconcileRecords?: false | Pick<ReconcileRecorderOptions, 'ratePerSecond' | 'burst' | 'instance'>;
  /**
   * The client reconcile records are written with: one of their own, so that they never take a place
   * in the rate limiter of the controller's writes. The controller's client when absent.
   */
  recordsClient?: Client;
}

/**
 * How long a stopped controller waits for the answers of its writes already sent (the API server's
 * default request timeout): until then their outcome, and so the state the next term starts from, is
 * unknown.
 */
const WRITE_SETTLE_TIMEOUT_MS = 60_000;

/** How long a controller that stopped in time waits for the writes its reconciles left unawaited. */
const DETACHED_WRITES_GRACE_MS = 2_000;

interface Source {
  /** What its objects are to this controller: the reconciled kind, owned objects, or others mapped to keys. */
  role: 'for' | 'owns' | 'watches';
  /** The kind of its objects, for the causes of reconciles (an object's own `kind` wins). */
  kind: string;
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
  /** Informers of what the reconciler reads besides its sources (`reads`, `indexes`). */
  private readonly readInformers: SharedInformer<KubeObject>[];
  /** The informer of each resource this controller reads, by resource id. */
  private readonly cachesById = new Map<string, SharedInformer<KubeObject>>();
  /**
   * The writes each key's last reconcile made (appended as they are answered, so a reconcile cut
   * short leaves them too): the next reconcile of the key waits until the caches show those of
   * watched resources, so a reconciler never acts twice on a stale view of its own writes.
   */
  private readonly unseenWrites = new Map<string, TrackedWrite[]>();
  /**
   * Creations and deletions of owned objects the reconciles asked for and the caches have not shown
   * (client-go's expectations), lowered by the owned informers' events here, in the same handler
   * that enqueues the owner, so a reconcile never runs on an event whose lowering it missed.
   */
  readonly expectations = new Expectations();
  /** Per key reconciled now: aborted when its object is seen being deleted or gone (`ReconcileContext.deleting`). */
  private readonly deleting = new Map<string, AbortController>();
  /** Writes of this controller's reconciles not yet answered or withdrawn, across terms. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private queue: RateLimitingQueue<string> | undefined;
  /** Handlers stay on the informers from the first start on: expectations must be lowered between terms too. */
  private registrations: ResourceEventHandlerRegistration[] | undefined;
  private workers: Promise<void>[] = [];
  private abort = new AbortController();
  /** The reads of the caches each reconcile gets, in this controller's namespace by default. */
  private readonly cache: CacheReader;
  /** Why each queued key was queued, handed to its next reconcile. */
  private readonly triggers = new TriggerLog();
  private readonly forKind: string;
  /** Publishes each reconcile through the API; absent when turned off. */
  private readonly recorder: ReconcileRecorder | undefined;

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
    this.cache = new InformerCacheReader(deps.informers, deps.client.scheme, options.namespace);
    // Indexes first: they must be in place before any cache of theirs fills.
    this.readInformers = prepareCaches(deps.informers, deps.client, options, options.namespace);

    const scheme = deps.client.scheme;
    const forInfo = resolveResource(options.for, scheme);
    this.forId = resourceId(forInfo);
    deps.tracker.track(this.forId);
    this.forInformer = this.informerFor(options.for);
    const ownerKind = forInfo.kind ?? (options.for as { kind?: string }).kind;
    this.forKind = ownerKind ?? forInfo.resource;
    this.sources.push({
      role: 'for',
      kind: this.forKind,
      informer: this.forInformer,
      toRequests: (obj) => [requestOf(obj)],
      predicates: options.predicates,
    });
    if (deps.reconcileRecords !== false) {
      let failures = 0;
      this.recorder = new ReconcileRecorder(deps.recordsClient ?? deps.client, {
        controller: this.name,
        apiVersion: forInfo.group ? `${forInfo.group}/${forInfo.version}` : forInfo.version,
        kind: this.forKind,
        ...deps.reconcileRecords,
        // Said once, then every hundredth time: a writer without the right to create Events
        // (an operator's narrow role) must not drown its own log.
        onError: (error) => {
          if (failures++ % 100 === 0) this.logger.error(`controller ${this.name}: reconcile record not published (${failures} so far)`, error);
        },
      });
    }
    const ownerGroup = forInfo.group;
    for (const owned of options.owns ?? []) {
      this.sources.push({
        role: 'owns',
        kind: kindOf(owned, scheme),
        informer: this.informerFor(owned),
        toRequests: (obj) => controllerOwnerRequests(obj, ownerGroup, ownerKind, forInfo.namespaced),
      });
    }
    for (const watch of options.watches ?? []) {
      const mapped = watch as unknown as WatchMapping<KubeObject, Reconcile>;
      this.sources.push({
        role: 'watches',
        kind: kindOf(mapped.resource, scheme),
        informer: this.informerFor(mapped.resource),
        toRequests: (obj) => mapped.mapTo(obj, reconciler, this.cache),
        predicates: mapped.predicates,
        delayMs: mapped.delay?.(reconciler),
      });
    }
  }

  /** The informers this controller reads, for the manager's sync and health checks. */
  informers(): SharedInformer<KubeObject>[] {
    return [...new Set([...this.sources.map((s) => s.informer), ...this.readInformers])];
  }

  get running(): boolean {
    return this.queue !== undefined && !this.queue.shuttingDown();
  }

  /** Number of keys waiting (not delayed, not in flight); undefined while stopped. */
  queueLength(): number | undefined {
    return this.queue?.len();
  }

  /**
   * Starts the workers with every cached object enqueued once: the reconciler starts from the whole
   * current state.
   */
  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    // Every request of every reconcile of this term listens to it: as many as the burst of writes.
    setMaxListeners(0, this.abort.signal);
    const queue = new RateLimitingQueue<string>({
      name: this.name,
      registry: this.deps.registry,
      rateLimiter: this.deps.rateLimiter?.(),
    });
    this.queue = queue;
    this.triggers.clear();
    if (this.registrations) {
      // The handlers are in place from an earlier term: what they saw meanwhile was not enqueued.
      for (const source of this.sources) {
        for (const obj of source.informer.indexer.list()) this.enqueue(source, { type: 'create', object: obj }, obj, 'resync');
      }
    } else {
      // A new handler is given every cached object first, which enqueues it.
      this.registrations = this.sources.map((source) => source.informer.addEventHandler(this.handlerFor(source)));
    }
    this.workers = Array.from({ length: this.concurrency }, () => this.work(queue));
    this.logger.info(`controller ${this.name}: started ${this.concurrency} worker(s)`);
  }

  /**
   * Stops taking work and waits up to `graceMs` for reconciles in flight; then cancels them: their
   * signal aborts, which withdraws every write of theirs not yet sent, and this waits for the
   * answers of those already sent. A reconcile that ignores its signal may still be running, but
   * can write nothing more, and all it wrote is known, for the next reconcile of its key to wait for.
   */
  async stop(graceMs = 30_000): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      queue.shutDownWithDrain().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.abort.abort(new Error(`controller ${this.name} stopped`));
      queue.shutDown();
      const unanswered = await this.settleWrites();
      this.logger.error(
        `controller ${this.name}: reconciles still running after ${graceMs} ms, cancelled; ` +
          (unanswered === 0 ? 'their writes are settled' : `${unanswered} of their writes still unanswered after ${WRITE_SETTLE_TIMEOUT_MS} ms`),
      );
    } else {
      await Promise.all(this.workers);
      // Writes a reconcile sent without awaiting them (events) get a moment for their answers
      // before the manager closes the connection.
      await this.settleWrites(Math.min(graceMs, DETACHED_WRITES_GRACE_MS));
    }
    this.workers = [];
    this.queue = undefined;
    this.logger.info(`controller ${this.name}: stopped`);
  }

  /** Removes the controller's handlers from the informers; call after stop, when it is not to run again. */
  dispose(): void {
    for (const registration of this.registrations ?? []) registration.remove();
    this.registrations = undefined;
  }

  /** Waits (bounded) for every write in flight to be answered or withdrawn; the number left. */
  private async settleWrites(timeoutMs = WRITE_SETTLE_TIMEOUT_MS): Promise<number> {
    if (this.inFlight.size === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    return this.inFlight.size;
  }

  private handlerFor(source: Source): ResourceEventHandler<KubeObject> {
    return {
      onAdd: (obj) => {
        if (source.role === 'owns') this.observeOwned(source, obj, isDeleting(obj) ? 'deleted' : 'created');
        this.enqueue(source, { type: 'create', object: obj }, obj);
      },
      onUpdate: (oldObj, newObj) => {
        if (source.role === 'owns' && isDeleting(newObj) && !isDeleting(oldObj)) this.observeOwned(source, newObj, 'deleted');
        if (source.role === 'for' && isDeleting(newObj)) this.deleting.get(requestKey(requestOf(newObj)))?.abort(new Error('the object is being deleted'));
        const event: PredicateEvent = { type: 'update', object: newObj, oldObject: oldObj };
        this.enqueue(source, event, newObj);
        // An owned object that changed owner must also wake its former owner.
        if (source.role !== 'for') this.enqueue(source, event, oldObj);
      },
      onDelete: (obj) => {
        if (source.role === 'owns') this.observeOwned(source, obj, 'deleted');
        if (source.role === 'for') {
          this.expectations.forget(requestKey(requestOf(obj)));
          this.deleting.get(requestKey(requestOf(obj)))?.abort(new Error('the object is gone'));
        }
        this.enqueue(source, { type: 'delete', object: obj }, obj);
      },
    };
  }

  /** Lowers the expectations of the owner of `obj`; before the owner is enqueued, so its reconcile sees them lowered. */
  private observeOwned(source: Source, obj: KubeObject, change: 'created' | 'deleted'): void {
    for (const request of source.toRequests(obj)) {
      const key = requestKey(request);
      if (change === 'created') this.expectations.creationObserved(key);
      else this.expectations.deletionObserved(key, obj);
    }
  }

  /** Enqueues the requests `obj` maps to, while the controller runs; between terms nothing is queued. */
  private enqueue(source: Source, event: PredicateEvent, obj: KubeObject, cause: TriggerType = TRIGGER_OF_EVENT[event.type]): void {
    const queue = this.queue;
    if (!queue || queue.shuttingDown()) return;
    if (!passesAll(source.predicates, event)) return;
    const requests = source.toRequests(obj);
    if (requests.length === 0) return;
    const about = {
      type: cause,
      kind: (obj as { kind?: string }).kind || source.kind,
      namespace: obj.metadata?.namespace || undefined,
      name: obj.metadata?.name ?? '',
    };
    for (const request of requests) {
      const key = requestKey(request);
      this.triggers.record(key, about);
      // A delayed key already waiting keeps its earlier time, so changes within the period make one reconcile.
      if (source.delayMs) queue.addAfter(key, source.delayMs);
      else queue.add(key);
    }
  }

  /** Queues `key` again because of its own reconcile's outcome, recorded as the cause of the next one. */
  private requeueOwn(key: string, cause: 'requeue' | 'requeue-after' | 'retry'): void {
    const { namespace, name } = requestFromKey(key);
    this.triggers.record(key, { type: cause, kind: this.forKind, namespace, name });
  }

  private informerFor(ref: ResourceRef<unknown>): SharedInformer<KubeObject> {
    const informer = informerForResource(this.deps.informers, this.deps.client, ref as ResourceRef<KubeObject>, this.options.namespace);
    this.cachesById.set(resourceId(resolveResource(ref, this.deps.client.scheme)), informer);
    return informer;
  }

  /** Aborted once the cache shows the object of `key` being deleted or gone (already, or while its reconcile runs). */
  private deletionSignal(key: string): AbortSignal {
    const controller = new AbortController();
    this.deleting.set(key, controller);
    const { namespace, name } = requestFromKey(key);
    const lister = this.forInformer.lister();
    const current = namespace ? lister.namespace(namespace).get(name) : lister.get(name);
    if (!current || isDeleting(current)) controller.abort(new Error('the object is being deleted or gone'));
    return controller.signal;
  }

  /** Once a reconcile is over, its writes are kept only if some are to watched resources. */
  private forgetUnwatchedWrites(key: string, writes: TrackedWrite[]): void {
    if (this.unseenWrites.get(key) === writes && !writes.some((w) => this.cachesById.has(w.resourceId))) this.unseenWrites.delete(key);
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
      for (const w of writes) {
        const cache = this.cachesById.get(w.resourceId);
        if (cache) waits.push(cache.waitForResourceVersion(w.objectKey, w.resourceVersion, timeoutMs));
      }
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
    // Taken before any wait: causes queued from here on mark the key for its next reconcile.
    const trigger = this.triggers.take(key);
    await this.awaitOwnWrites(key);
    this.logger.debug?.(`controller ${this.name}: reconciling ${key} (triggered by ${describeTrigger(trigger)})`);
    const request = requestFromKey(key);
    await tracer.startActiveSpan(
      `reconcile ${this.name}`,
      { kind: SpanKind.INTERNAL, attributes: spanAttributes(this.name, request, trigger) },
      async (span) => {
        for (const event of trigger.events) span.addEvent('trigger', triggerEventAttributes(event));
        try {
          const outcome = await this.reconcileKey(queue, key, request, trigger);
          span.setAttribute('svc.reconcile.result', outcome.result);
          if (outcome.error !== undefined) {
            span.recordException(outcome.error instanceof Error ? outcome.error : errorMessage(outcome.error));
            span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(outcome.error) });
          }
        } finally {
          span.end();
        }
      },
    );
  }

  /** One reconcile of `key` and what follows from its result: forgotten, queued again, or retried. */
  private async reconcileKey(
    queue: RateLimitingQueue<string>,
    key: string,
    request: Request,
    trigger: ReconcileTrigger,
  ): Promise<{ result: ReconcileOutcome; error?: unknown }> {
    const labels = { controller: this.name };
    const endTimer = this.metrics.time.startTimer(labels);
    this.metrics.active.inc(labels);
    let outcome: { result: ReconcileOutcome; error?: unknown };
    const writes: TrackedWrite[] = [];
    this.unseenWrites.set(key, writes);
    const signal = this.abort.signal;
    const made: ReconcileWrite[] | undefined = this.recorder ? [] : undefined;
    const startedAt = new Date();
    const started = performance.now();
    let requeueAfterMs: number | undefined;
    const deleting = this.deletionSignal(key);
    const inFlight = this.inFlight;
    const tracker = this.deps.tracker;
    try {
      const result = await tracker.collect(
        { writes, signal, inFlight, made },
        async () =>
          (await this.reconciler.reconcile(request, {
            controller: this.name,
            client: this.deps.client,
            cache: this.cache,
            signal,
            deleting,
            withdrawOn: (also, fn) => tracker.collect({ writes, signal: AbortSignal.any([signal, also]), inFlight, made }, fn),
            expectations: new KeyExpectations(this.expectations, key),
            trigger,
          })) as Result | undefined,
      );
      if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
        queue.forget(key);
        this.requeueOwn(key, 'requeue-after');
        queue.addAfter(key, result.requeueAfter);
        requeueAfterMs = result.requeueAfter;
        outcome = { result: 'requeue_after' };
      } else if (result?.requeue) {
        this.requeueOwn(key, 'requeue');
        queue.addRateLimited(key);
        outcome = { result: 'requeue' };
      } else {
        queue.forget(key);
        outcome = { result: 'success' };
      }
    } catch (error) {
      outcome = { result: 'error', error };
      this.metrics.errors.inc(labels);
      const cause = `triggered by ${describeTrigger(trigger)}`;
      if (isTerminalError(error)) {
        // As controller-runtime: counted and logged, not queued again, backoff kept as it was.
        this.metrics.terminalErrors.inc(labels);
        this.logger.error(`controller ${this.name}: reconcile of ${key} (${cause}) failed with a terminal error, not retried`, error);
      } else {
        this.logger.error(`controller ${this.name}: reconcile of ${key} (${cause}) failed (retry ${queue.numRequeues(key) + 1})`, error);
        this.requeueOwn(key, 'retry');
        queue.addRateLimited(key);
      }
    } finally {
      this.deleting.delete(key);
      this.forgetUnwatchedWrites(key, writes);
      this.metrics.active.dec(labels);
      endTimer();
    }
    this.metrics.total.inc({ ...labels, result: outcome.result });
    if (this.recorder && made) {
      const cached: MetaObject | undefined = this.forInformer.indexer.getByKey(key);
      const failed = outcome.error !== undefined;
      this.recorder.record(
        request,
        {
          startTime: microTime(startedAt),
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          result: failed ? (isTerminalError(outcome.error) ? 'terminal_error' : 'error') : outcome.result,
          ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
          ...(failed ? { error: recordedError(outcome.error) } : {}),
          trigger,
          writes: made.slice(0, MAX_RECORDED_WRITES),
          ...(made.length > MAX_RECORDED_WRITES ? { writesDropped: made.length - MAX_RECORDED_WRITES } : {}),
        },
        cached?.metadata?.uid,
      );
    }
    return outcome;
  }
}

/** A no-op until the process registers an OpenTelemetry SDK (the API's global provider). */
const tracer = trace.getTracer('@svc/runtime');

const TRIGGER_OF_EVENT: Record<PredicateEvent['type'], TriggerType> = { create: 'added', update: 'updated', delete: 'deleted' };

function kindOf(ref: unknown, scheme: Client['scheme']): string {
  const info = resolveResource(ref as ResourceRef<KubeObject>, scheme);
  return info.kind ?? (ref as { kind?: string }).kind ?? info.resource;
}

function spanAttributes(controller: string, request: Request, trigger: ReconcileTrigger): Attributes {
  const attributes: Attributes = {
    'svc.controller': controller,
    'svc.reconcile.name': request.name,
    'svc.reconcile.trigger.total': trigger.total,
    'svc.reconcile.trigger.distinct': trigger.events.length + trigger.dropped,
  };
  if (request.namespace) attributes['svc.reconcile.namespace'] = request.namespace;
  return attributes;
}

function triggerEventAttributes(event: TriggerEvent): Attributes {
  const attributes: Attributes = {
    'svc.trigger.type': event.type,
    'svc.trigger.kind': event.kind,
    'svc.trigger.name': event.name,
    'svc.trigger.count': event.count,
  };
  if (event.namespace) attributes['svc.trigger.namespace'] = event.namespace;
  return attributes;
}

/** RFC 3339 with microseconds, as Kubernetes writes MicroTime. */
function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function isDeleting(obj: KubeObject): boolean {
  return Boolean((obj as MetaObject).metadata?.deletionTimestamp);
}

function requestOf(obj: KubeObject): Request {
  const name = obj.metadata?.name ?? '';
  return obj.metadata?.namespace ? { namespace: obj.metadata.namespace, name } : { name };
}

/** The request of `obj`'s controller owner when it is of the owner kind; none otherwise. */
export function controllerOwnerRequests(obj: KubeObject, ownerGroup: string, ownerKind: string | undefined, ownerNamespaced: boolean): Request[] {
  const ref = getControllerOf(obj);
  if (!ref?.name || !ref.apiVersion) return [];
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  if (group !== ownerGroup || (ownerKind !== undefined && ref.kind !== ownerKind)) return [];
  return ownerNamespaced && obj.metadata?.namespace ? [{ namespace: obj.metadata.namespace, name: ref.name }] : [{ name: ref.name }];
}
