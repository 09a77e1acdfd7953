import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { Client, type ClientConfig } from '@svc/client';
import { Manager, RuntimeModule, type RuntimeModuleOptions } from '@svc/runtime';
import type { ControllerManagerOptions } from '@svc/options';
import type { BuiltInController } from './built-in-controller';
import { CONTROLLER_MANAGER_OPTIONS } from './controller-manager-options';

/**
 * The process's container: the framework's manager (RuntimeModule) and the enabled controllers'
 * reconcilers as ordinary providers, which the framework's explorer finds by their `@Reconciler`.
 * With `identities` (`--use-service-account-credentials`), each controller's providers live in a
 * module of their own whose `Client` connects as that controller: what they inject is the
 * controller's identity, while the shared informers read as the manager.
 */
@Module({})
export class ControllerManagerModule {
  static forRoot(
    options: ControllerManagerOptions,
    runtime: RuntimeModuleOptions,
    controllers: readonly BuiltInController[],
    identities?: (controller: BuiltInController) => ClientConfig,
  ): DynamicModule {
    const flags: Provider = { provide: CONTROLLER_MANAGER_OPTIONS, useValue: options };
    if (!identities) {
      return {
        module: ControllerManagerModule,
        imports: [RuntimeModule.forRoot(runtime)],
        providers: [flags, ...controllers.flatMap((c) => c.providers)],
      };
    }
    return {
      module: ControllerManagerModule,
      imports: [RuntimeModule.forRoot(runtime), ...controllers.map((c) => controllerModule(c, flags, identities(c)))],
      providers: [flags],
    };
  }
}

/** One controller's providers with a `Client` of its own identity (a module-local provider wins over the global one). */
function controllerModule(controller: BuiltInController, flags: Provider, identity: ClientConfig): DynamicModule {
  // A class per controller, so that Nest never takes two controllers' modules for one.
  const module = { [controller.name]: class {} }[controller.name];
  Module({})(module);
  return {
    module,
    providers: [flags, { provide: Client, useFactory: (manager: Manager) => manager.clientWith(identity), inject: [Manager] }, ...controller.providers],
  };
}
