import 'reflect-metadata';
import { Client } from '@svc/client';
import { Container, decorate, injectable, METADATA_KEY, type interfaces } from 'inversify';
import { getReconcilerOptions } from '../decorators/reconciler.decorator';
import { getRunnableOptions, type Runnable } from '../decorators/runnable.decorator';
import type { Reconcile } from '../reconcile/reconcile';
import { Manager, type ManagerOptions } from './manager';

/** The classes a container makes and a manager runs: `@Reconciler` classes and `@Runnable` classes. */
export interface ManagedClasses {
  /** Reconciler classes, each marked with `@Reconciler`; resolved with their constructor dependencies. */
  reconcilers?: ReadonlyArray<interfaces.Newable<Reconcile>>;
  /** Runnable classes, each marked with `@Runnable`; resolved likewise. */
  runnables?: ReadonlyArray<interfaces.Newable<Runnable>>;
}

export interface CreateManagerOptions extends ManagerOptions, ManagedClasses {
  /** The application's container, where the classes' dependencies are bound; a new one by default. */
  container?: Container;
}

/**
 * A manager and the inversify container that makes what it runs: the one way reconcilers and
 * runnables are made, in a plain Node program and inside Nest (`RuntimeModule`) alike. Each class is
 * bound in singleton scope and resolved, so its constructor gets what the container holds:
 * `Manager` and `Client` (the manager's read-your-writes client) are bound unless the container
 * already binds them, and typed options are classes bound to their values
 * (`container.bind(GreetingOptions).toConstantValue(options)`).
 */
export function createManager(options: CreateManagerOptions): { manager: Manager; container: Container } {
  const container = options.container ?? new Container();
  const manager = new Manager(options);
  if (!container.isBound(Manager)) container.bind(Manager).toConstantValue(manager);
  if (!container.isBound(Client)) container.bind(Client).toConstantValue(manager.client);
  addManagedClasses(manager, container, options);
  return { manager, container };
}

/**
 * Resolves `classes` from `container` and adds them to `manager` (for a part of an application whose
 * classes see other bindings, such as a child container whose `Client` has another identity).
 */
export function addManagedClasses(manager: Manager, container: interfaces.Container, classes: ManagedClasses): void {
  for (const cls of classes.reconcilers ?? []) {
    if (!getReconcilerOptions(cls)) throw new Error(`${cls.name} is not marked with @Reconciler`);
    manager.add(resolve(container, cls));
  }
  for (const cls of classes.runnables ?? []) {
    if (!getRunnableOptions(cls)) throw new Error(`${cls.name} is not marked with @Runnable`);
    manager.addRunnable(resolve(container, cls));
  }
}

function resolve<T>(container: interfaces.Container, cls: interfaces.Newable<T>): T {
  makeInjectable(cls);
  if (!container.isCurrentBound(cls)) container.bind(cls).toSelf().inSingletonScope();
  return container.get(cls);
}

/**
 * `@Reconciler` and `@Runnable` only record metadata; making a class (and the classes it extends)
 * injectable is the container's business, so the decorators need no container of their own.
 */
function makeInjectable(cls: interfaces.Newable<unknown>): void {
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    if (!Reflect.hasOwnMetadata(METADATA_KEY.PARAM_TYPES, c)) decorate(injectable(), c);
  }
}
