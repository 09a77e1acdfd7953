import { Module, type DynamicModule } from '@nestjs/common';
import { RuntimeModule, type RuntimeModuleOptions } from '@svc/runtime';
import type { ControllerManagerOptions } from '@svc/options';
import type { BuiltInController } from './built-in-controller';
import { CONTROLLER_MANAGER_OPTIONS } from './controller-manager-options';

/**
 * The process's container: the framework's manager (RuntimeModule) and the enabled controllers'
 * reconcilers as ordinary providers, which the framework's explorer finds by their `@Reconciler`.
 */
@Module({})
export class ControllerManagerModule {
  static forRoot(options: ControllerManagerOptions, runtime: RuntimeModuleOptions, controllers: readonly BuiltInController[]): DynamicModule {
    return {
      module: ControllerManagerModule,
      imports: [RuntimeModule.forRoot(runtime)],
      providers: [{ provide: CONTROLLER_MANAGER_OPTIONS, useValue: options }, ...controllers.flatMap((c) => c.providers)],
    };
  }
}
