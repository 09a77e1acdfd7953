import type { Scheme } from '@svc/api';
import { Client, resolveClientConfig, type ClientConfig } from '@svc/client';
import { SharedInformerFactory, type KubeObject, type RateLimiter, type SharedInformer, type SharedInformerFactoryOptions } from '@svc/informers';
import { type ResourceRef } from '../reconcile/resource-ref';
import { InformerCacheReader, type CacheReader } from '../reconcile/cache-reader';
import { prepareCaches } from '../reconcile/cache-declarations';
import { getRunnableOptions, type Runnable, type RunnableOptions } from '../decorators/runnable.decorator';
import { informerForResource } from '../controller/informer-for-resource';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { getReconcilerOptions, type ReconcilerOptions } from '../decorators/reconciler.decorator';
import { Controller, consoleControllerLogger, type ControllerLogger } from '../controller/controller';
import { TrackingClient } from '../controller/tracking-client';
import { WriteTracker } from '../controller/write-tracker';
import { DEFAULT_LEADER_ELECTION, type LeaderElectionConfig } from '../leader-election/leader-election-options';
import { LeaderElector } from '../leader-election/leader-elector';
import { registerInformerMetrics } from './informer-metrics';
import { admissionHooksOf } from '../webhooks/admission-decorators';
import { WebhookServer, type ManagerWebhookOptions } from '../webhooks/webhook-server';
import { convertingSources, installCustomResources, type CustomResourceSource } from '../resources/install-resources';
import type { Reconcile } from '../reconcile/reconcile';
import { HealthServer, type HealthServerOptions, type ProbeCheck } from './health-server';

export interface ManagerOptions {
  clientConfig: ClientConfig;
  /** Where `{ apiVersion, kind }` references are looked up (register CRD kinds in it); the built-in scheme by default. */
  scheme?: Scheme;
  /**
   * Health, readiness and metrics endpoint; none when absent. Port 0 picks a free one.
   * `alwaysAllowPaths` limits it to those paths (others get 403; see HealthServerOptions); `auth`
   * decides instead as Kubernetes' components do (TokenReview and SubjectAccessReview), and is closed
   * with the manager. `profiling` serves `/debug/pprof/` there too (`--profiling`).
   */
  http?: Pick<HealthServerOptions, 'port' | 'host' | 'tls' | 'alwaysAllowPaths' | 'auth' | 'profiling'>;
  /**
   * Leader election; off when absent or `leaderElect` is false. It runs on a client of its own
   * (`clientConfig`, by default the manager's with `/leader-election` added to its user agent): its
   * own connections and its own rate limiter, so no amount of controller traffic delays a renewal.
   */
  leaderElection?: Partial<LeaderElectionConfig> & { resourceName: string; identity?: string; clientConfig?: ClientConfig };
  /** How long stop waits for reconciles in flight. Default 30 s. */
  gracefulShutdownMs?: number;
  /** How long start waits for the informers' first lists. Default 60 s. */
  cacheSyncTimeoutMs?: number;
  /** Metrics registry; a new one by default. */
  registry?: Registry;
  /**
   * The process and Node.js runtime metrics of prom-client (`process_cpu_seconds_total`,
   * `process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, heap and GC, ...) in the
   * registry, as every Kubernetes component exposes its process's. On by default when `http`
   * serves `/metrics`; left alone when the registry given already has them.
   */
  processMetrics?: boolean;
  logger?: ControllerLogger;
  /** Per-key retry backoff of every controller; client-go's default controller limiter when absent. */
  rateLimiter?: () => RateLimiter<string>;
  readYourWritesTimeoutMs?: number;
  /** Workers per controller name, overriding the reconcilers' `concurrency` (process flags such as `--concurrent-*-syncs`). */
  concurrency?: Record<string, number>;
  informers?: SharedInformerFactoryOptions;
  /**
   * Resource types this operator defines (`defineResource`): their CustomResourceDefinitions are
   * applied and Established before the informers start.
   */
  resources?: readonly CustomResourceSource[];
  /**
   * Admission webhooks from `@Validate` / `@Default` methods (of `handlers`, and of the reconcilers),
   * served over HTTPS by every replica, and registered with the API server as
   * Validating/MutatingWebhookConfigurations: with `service`, naming that Service, by the leader,
   * never removed by a stopping replica; without (development mode), naming this process's URL,
   * installed at start and removed at stop. None when absent. The same
   * server serves the conversion functions of `resources` as their CRDs' conversion webhooks
   * (started for them even without this option; its host and port are taken from here).
   */
  webhooks?: ManagerWebhookOptions;
  /**
   * Each reconcile of every controller published as an Event about the reconciled object (trigger,
   * duration, result, requeue, writes; see ReconcileRecorder), at most `ratePerSecond` per controller
   * (default 5, burst 20); false publishes none. On by default.
   */
  reconcileRecords?: false | { ratePerSecond?: number; burst?: number; instance?: string };
}

type ManagerState = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

/** A runnable with the options it runs by. */
interface AddedRunnable {
  runnable: Runnable;
  options: RunnableOptions;
  informers: SharedInformer<KubeObject>[];
}

interface RunningRunnable {
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Runs reconcilers: one shared informer per watched resource, started and synced before any
 * controller runs; controllers run while this process leads (always, without leader election);
 * `/healthz`, `/readyz` and `/metrics` served meanwhile. The same object is used standalone
 * (`createManager`) and inside Nest (`RuntimeModule`).
 */
export class Manager {
  readonly client: TrackingClient;
  readonly informers: SharedInformerFactory;
  readonly registry: Registry;
  readonly tracker = new WriteTracker();
  private controllers: Controller[] = [];
  /** Clients of other identities made through {@link clientWith}, closed with the manager's. */
  private readonly otherClients: Client[] = [];
  private readonly runnables: AddedRunnable[] = [];
  private readonly running = new Map<AddedRunnable, RunningRunnable>();
  private readonly logger: ControllerLogger;
  private readonly elector: LeaderElector | undefined;
  /** The elector's own client, apart from the controllers' (client-go's leader elector runs on one of its own). */
  private readonly electionClient: Client | undefined;
  /** The reconcile records' own client: their writes never wait in the controllers' rate limiter. */
  private recordsClient: Client | undefined;
  private health: HealthServer | undefined;
  private state: ManagerState = 'new';
  private cacheReader: CacheReader | undefined;
  private leading = false;
  private leadership: Promise<void> = Promise.resolve();
  private httpPort: number | undefined;
  private webhooks: WebhookServer | undefined;
  private webhookInstall: AbortController | undefined;
  /** The port the admission webhooks listen on, once started. */
  webhookPort: number | undefined;
  /** Informers that existed when start began: until they have synced, the process is not ready. */
  private startedInformers = new Set<string>();
  private markElected: () => void = () => undefined;
  /**
   * Resolves once this process leads (at once after start without leader election), as
   * controller-runtime's `Elected()`: the moment work that must run on one replica only may begin.
   * It never resolves in a standby that stops without having led.
   */
  readonly elected: Promise<void> = new Promise<void>((resolve) => (this.markElected = resolve));
  /** `leader_election_master_status{name}`: 1 while this process leads, as client-go reports it. */
  private readonly leaderGauge: Gauge | undefined;

  constructor(private readonly options: ManagerOptions) {
    this.registry = options.registry ?? new Registry();
    this.logger = options.logger ?? consoleControllerLogger;
    this.client = new TrackingClient(options.clientConfig, this.tracker, { scheme: options.scheme });
    this.informers = new SharedInformerFactory(options.informers);
    registerInformerMetrics(this.registry, this.informers);
    if ((options.processMetrics ?? options.http !== undefined) && !this.registry.getSingleMetric('process_cpu_user_seconds_total')) {
      collectDefaultMetrics({ register: this.registry });
    }
    const le = options.leaderElection;
    if (le && le.leaderElect !== false) {
      this.leaderGauge =
        (this.registry.getSingleMetric('leader_election_master_status') as Gauge | undefined) ??
        new Gauge({
          name: 'leader_election_master_status',
          help: 'Gauge of whether this process is the leader of the named lease: 1 leading, 0 not.',
          labelNames: ['name'],
          registers: [this.registry],
        });
      this.leaderGauge.set({ name: le.resourceName }, 0);
      const { clientConfig, identity, ...election } = le;
      const config: LeaderElectionConfig = { ...DEFAULT_LEADER_ELECTION, ...election };
      this.electionClient = new Client(clientConfig ?? leaderElectionClientConfig(options.clientConfig), { scheme: options.scheme });
      this.elector = new LeaderElector(
        this.electionClient,
        config,
        {
          onStartedLeading: () => this.onLeadership(true),
          onStoppedLeading: () => this.onLeadership(false),
        },
        { identity, logger: this.logger },
      );
    }
  }

  /**
   * Adds a reconciler, with the options given or those `@Reconciler` recorded on its class. Added
   * before start, it starts with the others; added to a started manager, its informers start at once
   * and it runs, while this manager leads, once they have synced.
   */
  add<T = KubeObject, const W extends readonly unknown[] = []>(reconciler: Reconcile, options?: ReconcilerOptions<T, W>): Controller {
    if (this.state !== 'new' && this.state !== 'started') throw new Error(`reconcilers cannot be added: the manager is ${this.state}`);
    // Each source hands its callbacks only objects of its own resource, the types inferred above.
    const resolved = (options as ReconcilerOptions | undefined) ?? getReconcilerOptions(reconciler);
    if (!resolved) throw new Error(`${reconciler.constructor.name} has no @Reconciler options`);
    const name = resolved.name ?? reconciler.constructor.name;
    if (this.controllers.some((c) => c.name === name)) throw new Error(`a controller named ${name} is already added`);
    const controller = new Controller(reconciler, resolved, {
      client: this.client,
      informers: this.informers,
      registry: this.registry,
      tracker: this.tracker,
      logger: this.logger,
      rateLimiter: this.options.rateLimiter,
      concurrency: this.options.concurrency?.[name],
      readYourWritesTimeoutMs: this.options.readYourWritesTimeoutMs,
      reconcileRecords: this.options.reconcileRecords,
      recordsClient: this.options.reconcileRecords === false ? undefined : (this.recordsClient ??= this.newRecordsClient()),
    });
    this.controllers.push(controller);
    if (this.state === 'started') {
      // The wait for its caches stays outside the leadership chain: a slow or failing sync must
      // never delay stopping on a lost lease, nor a stop of the manager.
      const syncTimeout = this.options.cacheSyncTimeoutMs ?? 60_000;
      void Promise.all(controller.informers().map((i) => i.whenSynced(syncTimeout))).then((synced) => {
        if (this.state !== 'started' || !this.controllers.includes(controller)) return;
        if (!synced.every(Boolean)) {
          this.logger.error(`caches of ${name} did not sync; it does not run`);
          return;
        }
        this.leadership = this.leadership.then(() => {
          if (this.leading && this.state === 'started' && this.controllers.includes(controller)) controller.start();
        });
      });
    }
    return controller;
  }

  private newRecordsClient(): Client {
    return new Client(recordsClientConfig(this.options.clientConfig), { scheme: this.options.scheme });
  }

  /**
   * Adds work the manager runs (see {@link Runnable}), with the options given or those `@Runnable`
   * recorded on its class: while this manager leads, or (`leaderElection: false`) from its start to
   * its stop. The caches it declares are made now; added to a started manager, it starts once they
   * have synced.
   */
  addRunnable(runnable: Runnable, options?: RunnableOptions): void {
    if (this.state !== 'new' && this.state !== 'started') throw new Error(`runnables cannot be added: the manager is ${this.state}`);
    const resolved = options ?? getRunnableOptions(runnable) ?? { name: runnable.name ?? runnable.constructor.name };
    const added: AddedRunnable = { runnable, options: resolved, informers: prepareCaches(this.informers, this.client, resolved) };
    this.runnables.push(added);
    if (this.state !== 'started') return;
    const syncTimeout = this.options.cacheSyncTimeoutMs ?? 60_000;
    void Promise.all(added.informers.map((i) => i.whenSynced(syncTimeout))).then((synced) => {
      if (this.state !== 'started') return;
      if (!synced.every(Boolean)) {
        this.logger.error(`caches of ${resolved.name} did not sync; it does not run`);
        return;
      }
      if (!leaderElected(added)) {
        this.startRunnable(added);
        return;
      }
      this.leadership = this.leadership.then(() => {
        if (this.leading && this.state === 'started') this.startRunnable(added);
      });
    });
  }

  /**
   * Stops a controller (finishing its work in flight within the grace period) and removes it; an
   * informer no remaining controller uses is stopped and its cache freed. False when there is none.
   */
  async remove(name: string): Promise<boolean> {
    const controller = this.controllers.find((c) => c.name === name);
    if (!controller) return false;
    this.controllers = this.controllers.filter((c) => c !== controller);
    await controller.stop(this.options.gracefulShutdownMs ?? 30_000);
    controller.dispose();
    const stillUsed = new Set(this.controllers.flatMap((c) => c.informers()));
    for (const informer of controller.informers()) {
      if (stillUsed.has(informer)) continue;
      const key = this.informers.keys().find((k) => this.informers.get(k) === informer);
      if (key !== undefined) await this.informers.stopInformer(key);
    }
    return true;
  }

  /**
   * A read-your-writes client like {@link client} over another connection (another identity, such as
   * a controller's own ServiceAccount), reporting its writes to this manager's tracker so that
   * reconciles wait for them as for their own; closed when the manager stops. Informers keep reading
   * through the manager's own client.
   */
  clientWith(config: ClientConfig): TrackingClient {
    const client = new TrackingClient(config, this.tracker, { scheme: this.options.scheme });
    this.otherClients.push(client);
    return client;
  }

  /**
   * The shared informer of a resource (created on first request, started with the others), for
   * reconcilers to read the cache through `lister()` instead of the server.
   */
  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, namespace?: string): SharedInformer<T> {
    return informerForResource(this.informers, this.client, ref, namespace);
  }

  /**
   * Typed reads of the informers this manager holds, of all namespaces (a reconcile has its own,
   * `ReconcileContext.cache`, scoped to its controller's namespace), for reads outside a reconcile
   * such as a watch's `mapTo`.
   */
  get cache(): CacheReader {
    return (this.cacheReader ??= new InformerCacheReader(this.informers, this.client.scheme));
  }

  getControllers(): readonly Controller[] {
    return this.controllers;
  }

  /** The identity this manager campaigns with, when leader election is on. */
  get identity(): string | undefined {
    return this.elector?.identity;
  }

  /** True while controllers run: leading, or started without leader election. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * The identity of the lease's holder as last seen (this process's own while it leads); undefined
   * without leader election or before the lease was first read.
   */
  leader(): string | undefined {
    return this.elector?.leader() || undefined;
  }

  /** The port `/healthz`, `/readyz` and `/metrics` are served on. */
  get port(): number | undefined {
    return this.httpPort;
  }

  /**
   * Starts informers and waits for their first sync, serves the probes, then runs the controllers
   * (or campaigns for the lease and runs them once leading). Resolves once that is under way.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`the manager cannot start: it is ${this.state}`);
    this.state = 'starting';
    if (this.options.http) {
      this.health = new HealthServer({
        ...this.options.http,
        registry: this.registry,
        healthz: { ping: () => undefined },
        readyz: { informers: () => this.informerProblem(), started: () => (this.state === 'started' ? undefined : `manager is ${this.state}`) },
      });
      this.httpPort = await this.health.start();
    }
    const conversions = convertingSources(this.options.resources ?? []);
    if (this.options.webhooks || conversions.length > 0) {
      const { handlers = [], name = 'svc-operator', ...rest } = this.options.webhooks ?? {};
      const withHooks = [...handlers, ...this.controllers.map((c) => c.reconciler).filter((r) => admissionHooksOf(r).length > 0)];
      this.webhooks = new WebhookServer(this.client, { logger: this.logger, ...rest, name, handlers: [...new Set(withHooks)], conversions });
      try {
        this.webhookPort = await this.webhooks.start();
        if (!this.webhooks.servesReplicas) {
          this.logger.info(
            `webhooks in development mode: configurations name https://${rest.host ?? '127.0.0.1'}:${this.webhookPort}, installed now and removed at stop (set webhooks.service for replicas)`,
          );
          if (this.webhooks.size > 0) await this.webhooks.install();
        }
      } catch (error) {
        await this.shutdownParts();
        this.state = 'stopped';
        throw error;
      }
    }
    if (this.options.resources?.length) {
      try {
        const served = new Set(conversions.map((c) => c.name));
        await installCustomResources(this.client, this.options.resources, this.options.cacheSyncTimeoutMs ?? 60_000, (crdName) =>
          served.has(crdName) ? this.webhooks?.conversionOf(crdName) : undefined,
        );
      } catch (error) {
        await this.shutdownParts();
        this.state = 'stopped';
        throw error;
      }
    }
    this.informers.start();
    this.startedInformers = new Set(this.informers.keys());
    const synced = await this.informers.waitForCacheSync(this.options.cacheSyncTimeoutMs ?? 60_000);
    const unsynced = Object.entries(synced)
      .filter(([, ok]) => !ok)
      .map(([key]) => key);
    if (unsynced.length > 0) {
      await this.shutdownParts();
      this.state = 'stopped';
      throw new Error(`caches did not sync: ${unsynced.join(', ')}`);
    }
    this.state = 'started';
    for (const added of this.runnables) if (!leaderElected(added)) this.startRunnable(added);
    if (this.elector) this.elector.start();
    else await this.onLeadership(true);
  }

  /**
   * Graceful stop: controllers stop taking work and get the grace period to finish what is in
   * flight; a leader then releases its lease (unless `releaseLease` is false, which leaves it to
   * expire as a crash would), and the informers and probes stop.
   */
  async stop(options: { releaseLease?: boolean } = {}): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    this.state = 'stopping';
    if (this.elector) await this.elector.stop(options.releaseLease ?? true);
    else await this.onLeadership(false);
    await this.leadership;
    await this.stopRunnables(this.options.gracefulShutdownMs ?? 30_000, (added) => !leaderElected(added));
    await this.shutdownParts();
    this.state = 'stopped';
  }

  private async shutdownParts(): Promise<void> {
    await this.webhooks?.stop();
    await this.informers.shutdown();
    await this.health?.stop();
    this.options.http?.auth?.close();
    this.client.close();
    for (const client of this.otherClients) client.close();
    this.electionClient?.close();
    this.recordsClient?.close();
  }

  /** Serialised, so a quick loss after a gain stops what the gain started. */
  private onLeadership(leading: boolean): Promise<void> {
    this.leadership = this.leadership.then(async () => {
      if (leading === this.leading) return;
      this.leading = leading;
      const le = this.options.leaderElection;
      if (le) this.leaderGauge?.set({ name: le.resourceName }, leading ? 1 : 0);
      if (leading) {
        this.markElected();
        this.startWebhookInstall();
        for (const controller of this.controllers) controller.start();
        for (const added of this.runnables) if (leaderElected(added)) this.startRunnable(added);
      } else {
        // Lost leadership must stop before the lease can expire elsewhere: bound the grace by
        // the gap between the renew deadline and the lease duration.
        const le = this.options.leaderElection;
        const leaseGap =
          le && le.leaderElect !== false && this.state !== 'stopping'
            ? (le.leaseDurationMs ?? DEFAULT_LEADER_ELECTION.leaseDurationMs) - (le.renewDeadlineMs ?? DEFAULT_LEADER_ELECTION.renewDeadlineMs)
            : Infinity;
        const grace = Math.min(this.options.gracefulShutdownMs ?? 30_000, leaseGap);
        this.webhookInstall?.abort();
        this.webhookInstall = undefined;
        await Promise.all([...this.controllers.map((c) => c.stop(grace)), this.stopRunnables(grace, leaderElected)]);
      }
    });
    return this.leadership;
  }

  /**
   * The leader installs the webhook configurations of a replicated server (a replica that stops
   * never removes them, since the others still serve them), retrying with backoff until it succeeds
   * or leadership ends.
   */
  private startWebhookInstall(): void {
    const webhooks = this.webhooks;
    if (!webhooks?.servesReplicas || webhooks.size === 0) return;
    const abort = new AbortController();
    this.webhookInstall = abort;
    void (async () => {
      for (let delayMs = 200; !abort.signal.aborted; delayMs = Math.min(delayMs * 2, 10_000)) {
        try {
          await webhooks.install();
          this.logger.info('webhook configurations installed');
          return;
        } catch (error) {
          this.logger.error('webhook configurations could not be installed; retrying', error);
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    })();
  }

  private startRunnable(added: AddedRunnable): void {
    if (this.running.has(added)) return;
    const abort = new AbortController();
    const context = { client: this.client, cache: this.cache };
    const done = Promise.resolve()
      .then(() => added.runnable.run(abort.signal, context))
      .catch((error: unknown) => this.logger.error(`${added.options.name} failed`, error));
    this.running.set(added, { abort, done });
  }

  /** Tells the running runnables `which` picks to stop and waits for them, at most `graceMs`. */
  private async stopRunnables(graceMs: number, which: (added: AddedRunnable) => boolean): Promise<void> {
    const stopping = [...this.running].filter(([added]) => which(added));
    for (const [added] of stopping) this.running.delete(added);
    for (const [, r] of stopping) r.abort.abort(new Error('leadership ended'));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(stopping.map(([, r]) => r.done)), late]);
    clearTimeout(timer);
  }

  private informerProblem(): string | undefined {
    // An informer added while running (a reconciler added later, a new custom resource type)
    // makes the process unready only once it has synced and then failed: its first sync is the
    // business of whatever added it, not a reason to take the whole process out of rotation.
    const bad = this.informers.health().filter((h) => (h.synced ? !h.healthy : this.startedInformers.has(h.key)));
    if (bad.length === 0) return undefined;
    return bad.map((h) => `${h.key}: ${h.synced ? 'watch unhealthy' : 'not synced'}${h.lastError ? ` (${h.lastError.message})` : ''}`).join('; ');
  }
}

function leaderElected(added: AddedRunnable): boolean {
  return added.options.leaderElection !== false;
}

/** The manager's connection with `/leader-election` added to its user agent, as client-go names its elector's client. */
/** The manager's connection with `/reconcile-records` added to its user agent, and a rate of its own. */
function recordsClientConfig(config: ClientConfig): ClientConfig {
  return { ...config, userAgent: `${resolveClientConfig(config).userAgent}/reconcile-records` };
}

function leaderElectionClientConfig(config: ClientConfig): ClientConfig {
  return { ...config, userAgent: `${resolveClientConfig(config).userAgent}/leader-election` };
}

export type { ProbeCheck, Runnable };
