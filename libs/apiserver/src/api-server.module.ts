import { type DynamicModule, Module } from '@nestjs/common';
import { ProfilingController } from './debug/profiling.controller';
import { HealthController } from './health/health.controller';
import { MetricsController } from './metrics/metrics.controller';
import { type ServingCore, ServingCoreModule } from './serving-core.module';
import { VersionController } from './version/version.controller';

/** The root module: the serving shell's own endpoints plus whatever modules the caller hangs on it. */
@Module({})
export class ApiServerModule {
  static forRoot(core: ServingCore, extraModules: DynamicModule[] = []): DynamicModule {
    return {
      module: ApiServerModule,
      imports: [ServingCoreModule.forRoot(core), ...extraModules],
      controllers: [HealthController, MetricsController, VersionController, ProfilingController],
    };
  }
}
