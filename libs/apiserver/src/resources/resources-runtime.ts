import { Logger, type LoggerService } from '@nestjs/common';
import type { KindDefinition, Scheme } from '@svc/api';
import type { AdmissionPluginName } from '@svc/options';
import type { Storage } from '@svc/storage';
import {
  AdmissionChain,
  buildAdmissionChain,
  endpointsServiceResolver,
  storedAdmissionConfigurations,
  storedNamespaceLookup,
  storedCoreObjectLookup,
  storedNamespacePods,
  storedServiceAccountLookup,
  type AdmissionAuthorizer,
  type AdmissionPlugin,
} from '../admission';
import type { HealthRegistry } from '../health/health-registry';
import { healthCheck } from '../health/health-check';
import type { ServerLifecycle } from '../lifecycle/server-lifecycle';
import type { MetricsService } from '../metrics/metrics.service';
import { ensureBootstrapNamespaces } from './bootstrap-namespaces';
import { CacherPool, type CacherPoolOptions } from './cacher-pool';
import { startObjectCountPoller, startStorageSizePoller } from './object-count-metrics';
import { ResourceRegistries } from './registries';
import { ResourceRouter } from './resource-router';
import type { RegistryContext } from './registry-types';
import { DEFAULT_NODE_AGENT_CONNECTION, NodeAgentConnector, type NodeAgentConnectionOptions, type NodeLookup } from '../nodeagent/node-agent-connector';

/** The API server options the resource layer reads (names as the flags, durations in milliseconds). */
export interface ResourcesOptions {
  /** `--store-prefix`. */
  storePrefix: string;
  /**
   * The server issues service account tokens (TokenRequest, `--service-account-signing-key-file`): the
   * ServiceAccount admission plugin then mounts one into pods. Without it there is no token to mount.
   */
  serviceAccountTokensIssued?: boolean;
  /** `--watch-cache`. */
  watchCache: boolean;
  /** `--watch-cache-sizes`. */
  watchCacheSizes?: readonly string[];
  /**
   * The ConsistentListFromCache feature gate (on unless false): a read without a resourceVersion
   * asks the store its current revision and is served from the watch cache once the cache has
   * reached it, instead of reading the store.
   */
  consistentListFromCache?: boolean;
  /** `--delete-collection-workers`. */
  deleteCollectionWorkers: number;
  /** `--store-count-metric-poll-period`; 0 disables. */
  storeCountMetricPollPeriodMs: number;
  /** `--store-db-metric-poll-interval` in ms: how often the store's size is read for `apiserver_storage_size_bytes`; 0 disables. */
  storeDbMetricPollIntervalMs?: number;
  /** `--enable-admission-plugins`. */
  enableAdmissionPlugins?: readonly AdmissionPluginName[];
  /** `--disable-admission-plugins`. */
  disableAdmissionPlugins?: readonly AdmissionPluginName[];
  /** `--default-not-ready-toleration-seconds`. */
  defaultNotReadyTolerationSeconds?: number;
  /** `--default-unreachable-toleration-seconds`. */
  defaultUnreachableTolerationSeconds?: number;
  /** `--allow-privileged`: without it (the default) pods and pod templates with a privileged container are invalid. */
  allowPrivileged?: boolean;
  /** `--event-ttl`, in ms (an hour when absent; 0 keeps Events for ever). */
  eventTtlMs?: number;
  /** `--min-request-timeout`, in seconds. */
  minRequestTimeoutSeconds: number;
  /** Largest request body read. */
  maxRequestBodyBytes: number;
  /** Admission plugins added after the flag-selected ones (the CRD layer hooks in here). */
  extraAdmissionPlugins?: readonly AdmissionPlugin[];
  /** The server's authorizer, built after the registries: what CEL's `authorizer` asks in policies. */
  admissionAuthorizer?: AdmissionAuthorizer;
  /** Watch cache tuning (tests). */
  cacherOptions?: CacherPoolOptions['cacherOptions'];
  /** Whether the post-start hooks create the bootstrap namespaces (default true). */
  bootstrapNamespaces?: boolean;
  /** `--nodeagent-*`: how pods' log, exec, attach and portforward reach node agents. */
  nodeAgent?: NodeAgentConnectionOptions;
}

export interface ResourcesDependencies {
  storage: Storage;
  /** The shared scheme: custom resource kinds are registered into it at run time. */
  scheme: Scheme;
  options: ResourcesOptions;
  /** Registries built beforehand with createResourceRegistries (to share them); built here when absent. */
  registries?: ResourceRegistries;
  /**
   * Whether a served kind is enabled (`--runtime-config` can turn built-in group versions off); a
   * disabled one answers 404 like an unknown one. Everything the scheme serves by default.
   */
  isEnabled?: (definition: KindDefinition) => boolean;
}

/**
 * The registries of every kind with their watch caches and admission chain, without any of HTTP: for
 * the process entry to share with the modules that need them before the server starts.
 */
export function createResourceRegistries(
  deps: Pick<ResourcesDependencies, 'storage' | 'scheme' | 'options'> & Pick<RegistryContext, 'writeHooks'>,
): ResourceRegistries {
  const { storage, scheme, options } = deps;
  const cachers = new CacherPool(storage, {
    storePrefix: options.storePrefix,
    watchCache: options.watchCache,
    watchCacheSizes: options.watchCacheSizes,
    cacherOptions: options.cacherOptions,
  });
  const chain = buildAdmissionChain(options, {
    namespaces: storedNamespaceLookup(storage, options.storePrefix),
    serviceAccounts: storedServiceAccountLookup(storage, options.storePrefix),
    pods: storedCoreObjectLookup(storage, options.storePrefix, 'pods'),
    namespacePods: storedNamespacePods(storage, options.storePrefix),
    mountServiceAccountTokens: options.serviceAccountTokensIssued === true,
    configurations: storedAdmissionConfigurations(storage, options.storePrefix, scheme),
    authorizer: options.admissionAuthorizer,
  });
  return new ResourceRegistries({
    storage,
    scheme,
    storePrefix: options.storePrefix,
    cachers,
    admission: new AdmissionChain([...chain.plugins, ...(options.extraAdmissionPlugins ?? [])]),
    deleteCollectionWorkers: Math.max(1, options.deleteCollectionWorkers),
    consistentReadsFromCache: options.consistentListFromCache !== false,
    now: () => new Date(),
    maxRequestBodyBytes: options.maxRequestBodyBytes,
    writeHooks: deps.writeHooks,
    resolveService: endpointsServiceResolver(storage, options.storePrefix),
  });
}

export interface ServingHooks {
  health: HealthRegistry;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
  logger?: LoggerService;
}

export const WATCH_CACHE_CHECK = 'watch-cache-sync';

/**
 * The resource layer, wired: watch caches, admission, registries and the HTTP router, with its
 * readiness check, post-start hooks (bootstrap namespaces, watch cache warm-up), the object count
 * metric, and the stop hooks that end every watch and timer.
 */
export class ResourcesRuntime {
  readonly cachers: CacherPool;
  readonly admission: AdmissionChain;
  readonly registries: ResourceRegistries;
  readonly router: ResourceRouter;

  constructor(deps: ResourcesDependencies, hooks: ServingHooks) {
    const { storage, scheme, options } = deps;
    const registries = deps.registries ?? createResourceRegistries(deps);
    this.registries = registries;
    this.cachers = registries.cachers;
    this.admission = registries.context.admission;
    this.router = new ResourceRouter({
      scheme,
      registries,
      isEnabled: deps.isEnabled,
      metrics: hooks.metrics,
      lifecycle: hooks.lifecycle,
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
      maxRequestBodyBytes: options.maxRequestBodyBytes,
      logger: hooks.logger ?? new Logger('Resources'),
      nodeAgents: new NodeAgentConnector(options.nodeAgent ?? DEFAULT_NODE_AGENT_CONNECTION, async (name) => {
        const nodes = scheme.byResource({ group: '', version: 'v1', resource: 'nodes' });
        if (nodes === undefined) throw new Error('nodes are not served');
        return (await registries.forDefinition(nodes).get('', name, {})) as Awaited<ReturnType<NodeLookup>>;
      }),
    });

    hooks.health.addReadyzChecks(
      healthCheck(WATCH_CACHE_CHECK, () => {
        const lagging = this.cachers.notReady();
        if (lagging.length > 0) throw new Error(`watch caches not ready: ${lagging.join(', ')}`);
      }),
    );
    if (options.bootstrapNamespaces !== false) {
      hooks.health.addPostStartHook('bootstrap-namespaces', async () => {
        const namespaces = scheme.byResource({ group: '', version: 'v1', resource: 'namespaces' });
        if (namespaces !== undefined) await ensureBootstrapNamespaces(registries.forDefinition(namespaces));
      });
    }
    hooks.health.addPostStartHook('start-watch-caches', async () => {
      const started = scheme
        .all()
        .filter((d) => d.source.type === 'builtin')
        .map((d) => this.cachers.cacherFor(d.group, d.resource, true));
      await Promise.all(started.map((c) => c?.whenReady(60_000) ?? Promise.resolve()));
    });
    const stopPoller = startObjectCountPoller({
      storage,
      scheme,
      storePrefix: options.storePrefix,
      periodMs: options.storeCountMetricPollPeriodMs,
      setStorageObjects: (resource, count) => hooks.metrics.setStorageObjects(resource, count),
    });
    const stopSizePoller = startStorageSizePoller({
      storage,
      periodMs: options.storeDbMetricPollIntervalMs ?? 30_000,
      setStorageSize: (cluster, bytes) => hooks.metrics.setStorageSize(cluster, bytes),
    });
    hooks.lifecycle.onStopped(async () => {
      stopPoller();
      stopSizePoller();
      await this.cachers.stop();
    });
  }
}
