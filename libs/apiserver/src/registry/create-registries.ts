import type { Scheme } from '@svc/api';
import type { AdmissionPluginName } from '@svc/options';
import type { Storage } from '@svc/storage';
import { AdmissionChain, buildAdmissionChain, type AdmissionAuthorizer, type AdmissionPlugin } from '../admission';
import type { NodeAgentConnectionOptions } from '../nodeagent/node-agent-connector';
import { CacherPool, type CacherPoolOptions } from '../watchcache/cacher-pool';
import { admissionReads, registryServiceResolver } from './admission-reads';
import { ResourceRegistries } from './registries';
import type { RegistryContext } from './registry-context';
import { builtinSubresourceRest } from './rest-storage';

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
  /** The server's authorizer, built after the registries: what CEL's `authorizer` asks in policies and match conditions. */
  admissionAuthorizer?: AdmissionAuthorizer;
  /** Watch cache tuning (tests). */
  cacherOptions?: CacherPoolOptions['cacherOptions'];
  /** Whether the post-start hooks create the bootstrap namespaces (default true). */
  bootstrapNamespaces?: boolean;
  /** `--nodeagent-*`: how pods' log, exec, attach and portforward reach node agents. */
  nodeAgent?: NodeAgentConnectionOptions;
}

/**
 * The registries of every kind with their watch caches and admission chain, without any of HTTP: for
 * the process entry to share with the parts that need them before the server starts. Admission reads
 * what it needs through these registries (see admissionReads).
 */
export function createResourceRegistries(deps: {
  storage: Storage;
  scheme: Scheme;
  options: ResourcesOptions;
  writeHooks?: RegistryContext['writeHooks'];
}): ResourceRegistries {
  const { storage, scheme, options } = deps;
  const cachers = new CacherPool(storage, {
    storePrefix: options.storePrefix,
    watchCache: options.watchCache,
    watchCacheSizes: options.watchCacheSizes,
    cacherOptions: options.cacherOptions,
  });
  const holder: { registries?: ResourceRegistries } = {};
  const built = (): ResourceRegistries => holder.registries!;
  const chain = buildAdmissionChain(options, {
    ...admissionReads(built),
    mountServiceAccountTokens: options.serviceAccountTokensIssued === true,
    authorizer: options.admissionAuthorizer,
  });
  const context: RegistryContext = {
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
    resolveService: registryServiceResolver(built),
  };
  holder.registries = new ResourceRegistries(context, builtinSubresourceRest);
  return holder.registries;
}
