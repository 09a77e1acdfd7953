import 'reflect-metadata';
import { join } from 'node:path';
import { parseApiServerOptions, parseOrExit, type ApiServerOptions } from '@svc/options';
import { builtinScheme } from '@svc/api';
import { createStorage, type Storage } from '@svc/storage';
import { CrdModule } from './crd';
import { applyRuntimeConfig, DiscoveryModule, ServedApis } from './discovery';
import { healthCheck, servingConfig, startApiServer, type ApiServerServingConfig } from './index';
import { OpenApiModule } from './openapi';
import { createResourceRegistries, ResourcesModule, type ResourcesOptions } from './resources';

/** Maps the parsed flags onto what the serving shell needs. */
export function servingConfigFromOptions(o: ApiServerOptions): ApiServerServingConfig {
  return servingConfig({
    bindAddress: o.bindAddress,
    securePort: o.securePort,
    certDir: o.certDir,
    tlsCertFile: o.tlsCertFile,
    tlsPrivateKeyFile: o.tlsPrivateKeyFile,
    tlsMinVersion: o.tlsMinVersion,
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
  });
}

/** Maps the parsed flags onto what the resource layer needs. */
export function resourcesOptionsFromOptions(o: ApiServerOptions, serving: ApiServerServingConfig): ResourcesOptions {
  return {
    storePrefix: o.storePrefix,
    watchCache: o.watchCache,
    watchCacheSizes: o.watchCacheSizes,
    deleteCollectionWorkers: o.deleteCollectionWorkers,
    storeCountMetricPollPeriodMs: o.storeCountMetricPollPeriod,
    enableAdmissionPlugins: o.enableAdmissionPlugins,
    disableAdmissionPlugins: o.disableAdmissionPlugins,
    minRequestTimeoutSeconds: serving.minRequestTimeoutSeconds,
    maxRequestBodyBytes: serving.maxRequestBodyBytes,
  };
}

async function openStorage(o: ApiServerOptions): Promise<Storage> {
  return createStorage({
    backend: o.storageBackend,
    dataDir: o.dataDir,
    servers: o.storeServers,
    caFile: o.storeCafile,
    certFile: o.storeCertfile,
    keyFile: o.storeKeyfile,
    compactionIntervalMs: o.storeCompactionInterval,
  });
}

async function main(): Promise<void> {
  const options = parseOrExit(parseApiServerOptions, process.argv.slice(2));
  const storage = await openStorage(options);
  const serving = servingConfigFromOptions(options);
  // One scheme for the whole process: custom resource kinds are registered into it at run time.
  const scheme = builtinScheme();
  // Built-in group versions --runtime-config turns off leave the scheme: no part of the server serves them.
  applyRuntimeConfig(scheme, options.runtimeConfig ?? {});
  const servedApis = new ServedApis(scheme, options.runtimeConfig ?? {});
  const resourcesOptions = resourcesOptionsFromOptions(options, serving);
  const registries = createResourceRegistries({ storage, scheme, options: resourcesOptions });
  const server = await startApiServer(serving, [
    ResourcesModule.forRoot({ storage, scheme, options: resourcesOptions, registries }),
    DiscoveryModule.forRoot({ scheme, servedApis }),
    OpenApiModule.forRoot({ scheme, servedApis }),
    // Custom resources of a deleted definition are deleted through the registries, finalizers honoured.
    CrdModule.forRoot({ scheme, storage, storePrefix: options.storePrefix, registries }),
  ]);
  server.health.addLivezChecks(healthCheck('store', () => storage.healthCheck(options.storeHealthcheckTimeout)));
  server.health.addReadyzChecks(healthCheck('store', () => storage.healthCheck(options.storeReadycheckTimeout)));

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
  process.stderr.write(`svc-apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
