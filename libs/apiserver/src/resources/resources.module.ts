import { Module, type DynamicModule } from '@nestjs/common';
import { HealthRegistry } from '../health/health-registry';
import { ServerLifecycle } from '../lifecycle/server-lifecycle';
import { MetricsService } from '../metrics/metrics.service';
import { ResourceRegistries } from '../registry/registries';
import { ResourcesRuntime, type ResourcesDependencies } from './resources-runtime';

/**
 * Provides the resource layer to the serving shell. Its router is not a Nest route or middleware: the
 * shell hands it every resource request straight after the filters (see startApiServer), so no
 * framework machinery runs per resource request. Exports ResourceRegistries (and the runtime) for the
 * modules that need them (custom resources).
 */
@Module({})
export class ResourcesModule {
  static forRoot(deps: ResourcesDependencies): DynamicModule {
    return {
      module: ResourcesModule,
      providers: [
        {
          provide: ResourcesRuntime,
          useFactory: (health: HealthRegistry, metrics: MetricsService, lifecycle: ServerLifecycle) =>
            new ResourcesRuntime(deps, { health, metrics, lifecycle }),
          inject: [HealthRegistry, MetricsService, ServerLifecycle],
        },
        { provide: ResourceRegistries, useFactory: (runtime: ResourcesRuntime) => runtime.registries, inject: [ResourcesRuntime] },
      ],
      exports: [ResourcesRuntime, ResourceRegistries],
    };
  }
}
