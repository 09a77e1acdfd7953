import { Logger } from '@nestjs/common';
import type { KindDefinition, Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import { healthCheck } from '../health/health-check';
import { startObjectCountPoller, startStorageSizePoller } from '../metrics/object-count-metrics';
import { DEFAULT_NODE_AGENT_CONNECTION, NodeAgentConnector } from '../nodeagent/node-agent-connector';
import type { ResourcesOptions } from '../registry/create-registries';
import { ensureBootstrapNamespaces } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistries } from '../registry/registries';
import type { MuxRoute } from '../serving/mux';
import type { ServerPart, ServingCore } from '../serving/serving-core';
import { ResourceHandler } from './resource-handler';
import { RestEndpoints, type RestEndpointsOptions } from './rest-endpoints';
import { LargeBodyPool } from './responses/large-body-pool';

export interface ResourceLayerDependencies {
  storage: Storage;
  /** The shared scheme: custom resource kinds are registered into it at run time. */
  scheme: Scheme;
  options: ResourcesOptions;
  registries: ResourceRegistries;
  /**
   * Whether a served kind is enabled (`--runtime-config` can turn built-in group versions off); a
   * disabled one answers 404 like an unknown one. Everything the scheme serves by default.
   */
  isEnabled?: (definition: KindDefinition) => boolean;
  /** The resources served by a REST of their own: the reviews, TokenRequest, component statuses. */
  rest?: Omit<RestEndpointsOptions, 'maxRequestBodyBytes'>;
}

/** The readyz check that holds readiness until every started watch cache follows its resource. */
export const WATCH_CACHE_CHECK = 'watch-cache-sync';

/** The paths of every resource: the core group's and the named groups'. */
export const RESOURCE_PATHS = ['/api/{version}/{resource...}', '/apis/{group}/{version}/{resource...}'];

/**
 * The resource layer on the serving shell: the routes of every resource path (to one ResourceHandler),
 * the readiness of the watch caches, the post-start hooks (bootstrap namespaces, watch cache warm-up),
 * the object count metric, and the stop work that ends every watch and timer.
 */
export function resourceLayer(deps: ResourceLayerDependencies): ServerPart {
  return (core) => {
    const handler = resourceHandler(deps, core);
    installHooks(deps, core);
    return RESOURCE_PATHS.map((path): MuxRoute => ({ path, handler: (req, res) => handler.serve(req, res) }));
  };
}

function resourceHandler(deps: ResourceLayerDependencies, core: ServingCore): ResourceHandler {
  const { scheme, options, registries } = deps;
  return new ResourceHandler({
    scheme,
    registries,
    isEnabled: deps.isEnabled,
    metrics: core.metrics,
    lifecycle: core.lifecycle,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    maxRequestBodyBytes: options.maxRequestBodyBytes,
    logger: new Logger('Resources'),
    largeBodies: new LargeBodyPool(),
    restEndpoints: new RestEndpoints({ ...deps.rest, maxRequestBodyBytes: options.maxRequestBodyBytes }),
    nodeAgents: new NodeAgentConnector(options.nodeAgent ?? DEFAULT_NODE_AGENT_CONNECTION, async (name) => {
      const nodes = registries.nodes;
      if (nodes === undefined) throw new Error('nodes are not served');
      return nodes.get('', name, {});
    }),
  });
}

function installHooks(deps: ResourceLayerDependencies, core: ServingCore): void {
  const { storage, scheme, options, registries } = deps;
  const cachers = registries.cachers;
  core.health.addReadyzChecks(
    healthCheck(WATCH_CACHE_CHECK, () => {
      const lagging = cachers.notReady();
      if (lagging.length > 0) throw new Error(`watch caches not ready: ${lagging.join(', ')}`);
    }),
  );
  if (options.bootstrapNamespaces !== false) {
    core.health.addPostStartHook('bootstrap-namespaces', async () => {
      const namespaces = registries.namespaces;
      if (namespaces !== undefined) await ensureBootstrapNamespaces(namespaces);
    });
  }
  core.health.addPostStartHook('start-watch-caches', async () => {
    const started = scheme
      .all()
      .filter((d) => d.source.type === 'builtin')
      .map((d) => cachers.cacherFor(d.group, d.resource, true));
    await Promise.all(started.map((c) => c?.whenReady(60_000) ?? Promise.resolve()));
  });
  const stopPoller = startObjectCountPoller({
    storage,
    scheme,
    storePrefix: options.storePrefix,
    periodMs: options.storeCountMetricPollPeriodMs,
    setStorageObjects: (resource, count) => core.metrics.setStorageObjects(resource, count),
  });
  const stopSizePoller = startStorageSizePoller({
    storage,
    periodMs: options.storeDbMetricPollIntervalMs ?? 30_000,
    setStorageSize: (cluster, bytes) => core.metrics.setStorageSize(cluster, bytes),
  });
  core.lifecycle.onStopped(async () => {
    stopPoller();
    stopSizePoller();
    await cachers.stop();
  });
}
