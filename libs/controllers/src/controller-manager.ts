import { Client, type ClientConfig } from '@svc/client';
import type { ControllerManagerOptions } from '@svc/options';
import { addManagedClasses, createManager, type Manager, type ManagerOptions } from '@svc/runtime';
import type { Container, interfaces } from 'inversify';
import type { ControllerDescriptor } from './controller-descriptor';

/**
 * The controller manager's manager: the framework's `createManager`, and each enabled controller's
 * reconcilers and runnables made by its container, with the typed options the flags give them.
 * With `identities` (`--use-service-account-credentials`), each controller's classes are made in a
 * child container whose `Client` connects as that controller: what they write, they write as its
 * identity, while the shared informers read as the manager.
 */
export async function createControllerManager(
  flags: ControllerManagerOptions,
  runtime: ManagerOptions,
  controllers: readonly ControllerDescriptor[],
  identities?: (controller: ControllerDescriptor) => ClientConfig,
): Promise<{ manager: Manager; container: Container }> {
  const concurrency = { ...Object.assign({}, ...controllers.map((c) => c.concurrency(flags))), ...runtime.concurrency } as Record<string, number>;
  const { manager, container } = createManager({ ...runtime, concurrency });
  for (const controller of controllers) {
    const scope: interfaces.Container = identities ? container.createChild() : container;
    if (identities) {
      const identity = identities(controller);
      scope
        .bind(Client)
        .toDynamicValue(() => manager.clientWith(identity))
        .inSingletonScope();
    }
    for (const value of (await controller.options?.(flags, manager)) ?? []) {
      const type = value.constructor as interfaces.Newable<object>;
      if (!scope.isCurrentBound(type)) scope.bind(type).toConstantValue(value);
    }
    addManagedClasses(manager, scope, controller);
  }
  return { manager, container };
}
