import { errorMessage } from '@svc/machinery';
import 'reflect-metadata';
import { join } from 'node:path';
import { APISERVER_FEATURE_GATES, featureEnabled, parseApiServerOptions, parseOrExit, storeServersOverrides, type ApiServerFlags } from '@svc/options';
import { builtinScheme, type Scheme } from '@svc/api';
import { createApiServer, type ApiServerOptions } from '@svc/apiserver';
import { createStorage, prefixKey, routedStorage, type Storage, type StorageConfig, type StorageRoute } from '@svc/storage';
import { auditOptionsFromFlags, encryptionFromFlags, tokenWebhookFromFlags } from './security-config';
import { securityOptionsFromFlags } from './security-flags';
import { unsupportedFlagProblem } from './unsupported-flags';

/** Maps the parsed flags onto the API server's options. */
export function apiServerOptionsFromFlags(o: ApiServerFlags): ApiServerOptions {
  return {
    serving: {
      bindAddress: o.bindAddress,
      securePort: o.securePort,
      certDir: o.certDir,
      tlsCertFile: o.tlsCertFile,
      tlsPrivateKeyFile: o.tlsPrivateKeyFile,
      tlsMinVersion: o.tlsMinVersion,
      profiling: o.profiling,
      tlsCipherSuites: o.tlsCipherSuites,
      advertiseAddress: o.advertiseAddress,
      svcconfigOut: o.svcconfigOut || join(o.certDir, 'svcconfig'),
      shutdownDelayDurationMs: o.shutdownDelayDuration ?? 0,
      shutdownSendRetryAfter: o.shutdownSendRetryAfter ?? false,
      livezGracePeriodMs: o.livezGracePeriod ?? 0,
      requestTimeoutMs: o.requestTimeout,
      minRequestTimeoutSeconds: o.minRequestTimeout,
      maxRequestsInflight: o.maxRequestsInflight,
      maxMutatingRequestsInflight: o.maxMutatingRequestsInflight,
      strictTransportSecurityDirectives: [...(o.strictTransportSecurityDirectives ?? [])],
      corsAllowedOrigins: [...(o.corsAllowedOrigins ?? [])],
      // The console the build puts beside the compiled apps (dist/console), when there is one.
      consoleDir: join(__dirname, '..', '..', '..', 'console'),
    },
    resources: {
      storePrefix: o.storePrefix,
      watchCache: o.watchCache,
      watchCacheSizes: o.watchCacheSizes,
      consistentListFromCache: featureEnabled(APISERVER_FEATURE_GATES, o.featureGates, 'ConsistentListFromCache'),
      deleteCollectionWorkers: o.deleteCollectionWorkers,
      storeCountMetricPollPeriodMs: o.storeCountMetricPollPeriod,
      storeDbMetricPollIntervalMs: o.storeDbMetricPollInterval,
      enableAdmissionPlugins: o.enableAdmissionPlugins,
      disableAdmissionPlugins: o.disableAdmissionPlugins,
      nodeAgent: {
        clientCertificate: o.nodeagentClientCertificate,
        clientKey: o.nodeagentClientKey,
        certificateAuthority: o.nodeagentCertificateAuthority,
        preferredAddressTypes: [...o.nodeagentPreferredAddressTypes],
        timeoutMs: o.nodeagentTimeout,
      },
      defaultNotReadyTolerationSeconds: o.defaultNotReadyTolerationSeconds,
      defaultUnreachableTolerationSeconds: o.defaultUnreachableTolerationSeconds,
      allowPrivileged: o.allowPrivileged,
      eventTtlMs: o.eventTtl,
    },
    runtimeConfig: o.runtimeConfig ?? {},
    services: {
      serviceClusterIpRange: o.serviceClusterIpRange,
      serviceNodePortRange: o.serviceNodePortRange,
      kubernetesServiceNodePort: o.svcServiceNodePort,
      endpointReconcilerType: o.endpointReconcilerType,
      masterServiceNamespace: o.masterServiceNamespace,
    },
    identityLease: featureEnabled(APISERVER_FEATURE_GATES, o.featureGates, 'APIServerIdentity') && {
      durationSeconds: o.identityLeaseDurationSeconds,
      renewIntervalSeconds: o.identityLeaseRenewIntervalSeconds,
    },
    aggregator: {
      enableAggregatorRouting: o.enableAggregatorRouting === true,
      proxyClientCertFile: o.proxyClientCertFile || undefined,
      proxyClientKeyFile: o.proxyClientKeyFile || undefined,
    },
    priorityAndFairness: o.enablePriorityAndFairness,
    storeHealthcheckTimeoutMs: o.storeHealthcheckTimeout,
    storeReadycheckTimeoutMs: o.storeReadycheckTimeout,
    ...securityOptionsFromFlags(o),
  };
}

/**
 * The store of `--storage-backend`, and one more per `--store-servers-overrides` entry for the keys of
 * that resource (with the same TLS files and compaction, as Kubernetes' overrides take them).
 */
async function openStorage(o: ApiServerFlags, scheme: Scheme): Promise<Storage> {
  const config: StorageConfig = {
    backend: o.storageBackend,
    dataDir: o.dataDir,
    servers: o.storeServers,
    caFile: o.storeCafile,
    certFile: o.storeCertfile,
    keyFile: o.storeKeyfile,
    compactionIntervalMs: o.storeCompactionInterval,
    leaseReuseDurationSeconds: o.leaseReuseDurationSeconds,
  };
  const main = await createStorage(config);
  const routes: StorageRoute[] = [];
  try {
    for (const override of storeServersOverrides(o)) {
      const group = scheme.registeredGroup(override.group) ?? override.group;
      const builtIn = scheme.all().some((d) => d.group === group && d.resource === override.resource && d.source.type === 'builtin');
      const prefix = prefixKey({ prefix: o.storePrefix, group, resource: override.resource, builtIn });
      routes.push({ prefix, storage: await createStorage({ ...config, servers: override.servers }) });
    }
  } catch (error) {
    await Promise.all([main, ...routes.map((r) => r.storage)].map((s) => s.close().catch(() => undefined)));
    throw error;
  }
  return routedStorage(main, routes);
}

async function main(): Promise<void> {
  const flags = parseOrExit(parseApiServerOptions, process.argv.slice(2));
  const unsupported = unsupportedFlagProblem(flags);
  if (unsupported !== undefined) {
    process.stderr.write(`svc-apiserver: ${unsupported}\n`);
    process.exit(2);
  }
  const scheme = builtinScheme();
  let audit: Awaited<ReturnType<typeof auditOptionsFromFlags>>;
  let encryption: ReturnType<typeof encryptionFromFlags>;
  let tokenWebhook: Awaited<ReturnType<typeof tokenWebhookFromFlags>>;
  try {
    audit = await auditOptionsFromFlags(flags);
    tokenWebhook = await tokenWebhookFromFlags(flags);
    encryption = encryptionFromFlags(flags, scheme);
  } catch (error) {
    // A configuration file the flags name is part of the flags: refused like a bad flag.
    process.stderr.write(`${errorMessage(error)}\n`);
    process.exit(2);
  }
  const opened = await openStorage(flags, scheme);
  const storage = encryption ? encryption(opened) : opened;
  const options = apiServerOptionsFromFlags(flags);
  const authentication = tokenWebhook ? { ...options.authentication, tokenWebhook } : options.authentication;
  const server = await createApiServer({ storage, scheme, options: { ...options, authentication, audit } });

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) process.exit(1); // a second signal: stop at once
    stopping = true;
    await server.shutdown();
    await storage.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-apiserver: ${errorMessage(err)}\n`);
  process.exit(1);
});
