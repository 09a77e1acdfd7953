import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { ApiServerServingConfig } from './config';
import { HealthRegistry } from './health/health-registry';
import { ServerLifecycle } from './lifecycle/server-lifecycle';
import { MetricsService } from './metrics/metrics.service';

/** Injection token of the ApiServerServingConfig. */
export const SERVING_CONFIG = Symbol('ApiServerServingConfig');

/** The objects the serving shell shares with the modules hung on it. */
export interface ServingCore {
  config: ApiServerServingConfig;
  health: HealthRegistry;
  metrics: MetricsService;
  lifecycle: ServerLifecycle;
}

/**
 * Makes the serving shell's shared objects injectable everywhere: resource modules inject
 * HealthRegistry, MetricsService, ServerLifecycle and @Inject(SERVING_CONFIG) without importing anything.
 */
@Global()
@Module({})
export class ServingCoreModule {
  static forRoot(core: ServingCore): DynamicModule {
    const providers = [
      { provide: SERVING_CONFIG, useValue: core.config },
      { provide: HealthRegistry, useValue: core.health },
      { provide: MetricsService, useValue: core.metrics },
      { provide: ServerLifecycle, useValue: core.lifecycle },
    ];
    return { module: ServingCoreModule, providers, exports: providers.map((p) => p.provide) };
  }
}
