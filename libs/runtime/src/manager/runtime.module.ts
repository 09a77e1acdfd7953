import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Client } from '@svc/client';
import { getReconcilerOptions } from '../decorators/reconciler.decorator';
import type { Reconcile } from '../reconcile/reconcile';
import { Manager, type ManagerOptions } from './manager';

export const RUNTIME_OPTIONS = Symbol.for('svc.runtime.options');

export interface RuntimeModuleOptions extends ManagerOptions {
  /** Start the manager when the application bootstraps (default true). */
  autoStart?: boolean;
}

/**
 * Reads `@Reconciler` metadata off the application's providers at bootstrap and hands the
 * instances Nest made to the manager: Nest owns them, the manager only runs them.
 */
@Injectable()
export class ReconcilerExplorer implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly manager: Manager,
    @Inject(RUNTIME_OPTIONS) private readonly options: RuntimeModuleOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const seen = new Set<unknown>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Reconcile | undefined;
      if (!instance || typeof instance !== 'object' || seen.has(instance) || !wrapper.isDependencyTreeStatic()) continue;
      const options = getReconcilerOptions(instance);
      if (!options) continue;
      seen.add(instance);
      this.manager.add(instance, options);
    }
    if (this.options.autoStart !== false) await this.manager.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.manager.stop();
  }
}

/**
 * The framework inside a Nest application: `RuntimeModule.forRoot({ clientConfig, ... })` once, and
 * reconciler classes as ordinary providers of any module. `Manager` and `Client` (the manager's
 * read-your-writes client) are injectable everywhere. Call `app.enableShutdownHooks()` for a
 * graceful stop on SIGTERM.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(options: RuntimeModuleOptions): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: RUNTIME_OPTIONS, useValue: options },
        { provide: Manager, useFactory: () => new Manager(options) },
        { provide: Client, useFactory: (manager: Manager) => manager.client, inject: [Manager] },
        ReconcilerExplorer,
      ],
      exports: [Manager, Client],
    };
  }
}
