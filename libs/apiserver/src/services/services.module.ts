import type { AddressInfo, Server } from 'node:net';
import { type DynamicModule, Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import { SERVING_CONFIG } from '../serving-core.module';
import type { ApiServerServingConfig } from '../config';
import { HealthRegistry } from '../health/health-registry';
import { ServerLifecycle } from '../lifecycle/server-lifecycle';
import type { ResourceRegistries } from '../resources';
import { advertisedAddress, KubernetesService, type EndpointReconcilerType } from './kubernetes-service';
import type { ServiceAllocators } from './service-allocation';
import { repairServiceAllocations } from './service-repair';

/** How often the allocations are checked against the stored Services (Kubernetes: every 3 minutes). */
export const SERVICE_REPAIR_INTERVAL_MS = 3 * 60_000;

/** The post-start hooks of Services, named as Kubernetes names its own. */
export const SERVICE_POST_START_HOOKS = { repair: 'start-service-ip-repair-controllers', bootstrap: 'bootstrap-controller' } as const;

export interface ServicesModuleOptions {
  scheme: Scheme;
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

const SERVICES_OPTIONS = Symbol('ServicesModuleOptions');

@Injectable()
class ServicesLifecycle implements OnModuleInit {
  private readonly logger = new Logger('Services');

  constructor(
    @Inject(SERVICES_OPTIONS) private readonly options: ServicesModuleOptions,
    @Inject(SERVING_CONFIG) private readonly serving: ApiServerServingConfig,
    private readonly health: HealthRegistry,
    private readonly lifecycle: ServerLifecycle,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const { storage, storePrefix } = this.options;
    this.health.addPostStartHook(SERVICE_POST_START_HOOKS.repair, async () => {
      await this.repair();
      const timer = setInterval(
        () => void this.repair().catch((error: unknown) => this.logger.error(`service allocation repair: ${String(error)}`)),
        SERVICE_REPAIR_INTERVAL_MS,
      );
      timer.unref();
      this.lifecycle.onStopped(() => clearInterval(timer));
    });
    this.health.addPostStartHook(SERVICE_POST_START_HOOKS.bootstrap, async () => {
      const services = this.options.scheme.byResource({ group: '', version: 'v1', resource: 'services' });
      const endpoints = this.options.scheme.byResource({ group: '', version: 'v1', resource: 'endpoints' });
      if (services === undefined || endpoints === undefined) return;
      const endpointSlices = this.options.scheme.byResource({ group: 'discovery.svc.io', version: 'v1', resource: 'endpointslices' });
      const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
      const controller = new KubernetesService({
        services: this.options.registries.forDefinition(services),
        endpoints: this.options.registries.forDefinition(endpoints),
        endpointSlices: endpointSlices && this.options.registries.forDefinition(endpointSlices),
        storage,
        storePrefix,
        namespace: this.options.masterServiceNamespace,
        clusterIP: this.options.kubernetesClusterIP,
        advertiseAddress: advertisedAddress(this.serving.advertiseAddress, this.serving.bindAddress),
        port: (server.address() as AddressInfo).port,
        nodePort: this.options.kubernetesServiceNodePort,
        endpointReconcilerType: this.options.endpointReconcilerType,
      });
      this.lifecycle.onStopped(() => controller.stop());
      // The namespace comes from another post-start hook, usually within milliseconds: look again
      // soon, then less often, for up to 15 s.
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
    });
  }

  private async repair(): Promise<void> {
    const outcome = await repairServiceAllocations({
      storage: this.options.storage,
      storePrefix: this.options.storePrefix,
      allocators: this.options.allocators,
    });
    for (const problem of outcome.problems) this.logger.warn(problem);
  }
}

/**
 * Services as Kubernetes runs them beside the API: the repair of cluster IP and node port allocations
 * (at start and every 3 minutes) and the `kubernetes` Service with its Endpoints.
 */
@Module({})
export class ServicesModule {
  static forRoot(options: ServicesModuleOptions): DynamicModule {
    return {
      module: ServicesModule,
      providers: [{ provide: SERVICES_OPTIONS, useValue: options }, ServicesLifecycle],
    };
  }
}
