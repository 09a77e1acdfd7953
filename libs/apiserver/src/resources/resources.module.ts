import { Inject, Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { HealthRegistry } from '../health/health-registry';
import { ServerLifecycle } from '../lifecycle/server-lifecycle';
import { MetricsService } from '../metrics/metrics.service';
import { ResourceRegistries } from './registries';
import { ResourcesRuntime, type ResourcesDependencies } from './resources-runtime';

/**
 * Hangs the resource layer on the serving shell: one middleware in front of every route answers
 * resource paths and passes everything else on (health, metrics, version, discovery). Middleware
 * rather than a wildcard controller keeps Nest's routing and its per-request wrapping out of the way.
 * Exports ResourceRegistries (and the runtime) for the modules that need them (custom resources).
 */
@Module({})
export class ResourcesModule implements NestModule {
  constructor(@Inject(ResourcesRuntime) private readonly runtime: ResourcesRuntime) {}

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

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(this.runtime.router.handle).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
