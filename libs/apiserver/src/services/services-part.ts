import { Logger } from '@nestjs/common';
import type { Storage } from '@svc/storage';
import type { ResourceRegistries } from '../registry/registries';
import type { ServerPart, ServingCore } from '../serving/serving-core';
import { advertisedAddress, KubernetesService, type EndpointReconcilerType } from './kubernetes-service';
import type { ServiceAllocators } from './service-allocation';
import { repairServiceAllocations } from './service-repair';

/** How often the allocations are checked against the stored Services (Kubernetes: every 3 minutes). */
export const SERVICE_REPAIR_INTERVAL_MS = 3 * 60_000;

/** The post-start hooks of Services, named as Kubernetes names its own. */
export const SERVICE_POST_START_HOOKS = { repair: 'start-service-ip-repair-controllers', bootstrap: 'bootstrap-controller' } as const;

export interface ServicesPartOptions {
  storage: Storage;
  storePrefix: string;
  registries: ResourceRegistries;
  allocators: ServiceAllocators;
  /** The first address of the primary range: the `kubernetes` Service's cluster IP. */
  kubernetesClusterIP: string;
  /** `--master-service-namespace`. */
  masterServiceNamespace: string;
  /** `--svc-service-node-port`. */
  kubernetesServiceNodePort?: number;
  /** `--endpoint-reconciler-type`. */
  endpointReconcilerType: EndpointReconcilerType;
}

/**
 * Services as Kubernetes runs them beside the API: the repair of cluster IP and node port allocations
 * (at start and every 3 minutes) and the `kubernetes` Service with its Endpoints.
 */
export function services(options: ServicesPartOptions): ServerPart {
  return (core) => {
    const logger = new Logger('Services');
    const repair = async (): Promise<void> => {
      const outcome = await repairServiceAllocations({ storage: options.storage, storePrefix: options.storePrefix, allocators: options.allocators });
      for (const problem of outcome.problems) logger.warn(problem);
    };
    core.health.addPostStartHook(SERVICE_POST_START_HOOKS.repair, async () => {
      await repair();
      const timer = setInterval(
        () => void repair().catch((error: unknown) => logger.error(`service allocation repair: ${String(error)}`)),
        SERVICE_REPAIR_INTERVAL_MS,
      );
      timer.unref();
      core.lifecycle.onStopped(() => clearInterval(timer));
    });
    core.health.addPostStartHook(SERVICE_POST_START_HOOKS.bootstrap, () => startKubernetesService(options, core));
  };
}

/** The `kubernetes` Service and its Endpoints, once the namespace exists (another post-start hook makes it, usually within milliseconds). */
async function startKubernetesService(options: ServicesPartOptions, core: ServingCore): Promise<void> {
  const { registries } = options;
  const services = registries.services;
  const endpoints = registries.endpoints;
  if (services === undefined || endpoints === undefined) return;
  const controller = new KubernetesService({
    services,
    endpoints,
    endpointSlices: registries.endpointSlices,
    storage: options.storage,
    storePrefix: options.storePrefix,
    namespace: options.masterServiceNamespace,
    clusterIP: options.kubernetesClusterIP,
    advertiseAddress: advertisedAddress(core.config.advertiseAddress, core.config.bindAddress),
    port: core.address().port,
    nodePort: options.kubernetesServiceNodePort,
    endpointReconcilerType: options.endpointReconcilerType,
  });
  core.lifecycle.onStopped(() => controller.stop());
  // Look again soon, then less often, for up to 15 s.
  const deadline = Date.now() + 15_000;
  for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
    try {
      await controller.start();
      return;
    } catch (error) {
      if (Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
