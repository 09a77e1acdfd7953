import 'reflect-metadata';
import { Client } from '@svc/client';
import { Container, decorate, injectable, METADATA_KEY, type interfaces } from 'inversify';
import { getReconcilerOptions } from '../decorators/reconciler.decorator';
import type { Reconcile } from '../reconcile/reconcile';
import { Manager, type ManagerOptions } from './manager';

/** Injection tokens the standalone container binds. */
export const MANAGER = Symbol.for('svc.runtime.Manager');

export interface CreateManagerOptions extends ManagerOptions {
  /** Reconciler classes, each marked with `@Reconciler`; resolved with their constructor dependencies. */
  reconcilers: Array<interfaces.Newable<Reconcile>>;
  /** The application's container, where the reconcilers' dependencies are bound; a new one by default. */
  container?: Container;
}

/**
 * A manager for a plain Node program (no Nest). The inversify container owns the reconciler
 * instances: each class is bound in singleton scope and resolved, so its constructor gets what the
 * container holds. `Manager` and `Client` (the manager's read-your-writes client) are bound too,
 * unless the container already binds them.
 */
export function createManager(options: CreateManagerOptions): { manager: Manager; container: Container } {
  const container = options.container ?? new Container();
  const manager = new Manager(options);
  if (!container.isBound(MANAGER)) container.bind(MANAGER).toConstantValue(manager);
  if (!container.isBound(Manager)) container.bind(Manager).toConstantValue(manager);
  if (!container.isBound(Client)) container.bind(Client).toConstantValue(manager.client);
  for (const cls of options.reconcilers) {
    if (!getReconcilerOptions(cls)) throw new Error(`${cls.name} is not marked with @Reconciler`);
    // @Reconciler only records metadata; making the class injectable is the container's business.
    if (!Reflect.hasOwnMetadata(METADATA_KEY.PARAM_TYPES, cls)) decorate(injectable(), cls);
    if (!container.isBound(cls)) container.bind(cls).toSelf().inSingletonScope();
    manager.add(container.get(cls));
  }
  return { manager, container };
}
