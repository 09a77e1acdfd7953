import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from '@svc/client';
import { Container } from 'inversify';
import { createManager, type CreateManagerOptions } from './create-manager';
import { Manager } from './manager';

export const RUNTIME_OPTIONS = Symbol.for('svc.runtime.options');

export interface RuntimeModuleOptions extends CreateManagerOptions {
  /** Start the manager when the application bootstraps (default true). */
  autoStart?: boolean;
}

/** Starts the manager when the application bootstraps and stops it when the application shuts down. */
@Injectable()
export class ManagerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly manager: Manager,
    @Inject(RUNTIME_OPTIONS) private readonly options: RuntimeModuleOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart !== false) await this.manager.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.manager.stop();
  }
}

/**
 * The framework inside a Nest application: `RuntimeModule.forRoot({ clientConfig, reconcilers,
 * runnables, ... })` once. The reconcilers and runnables are made by the same inversify container as
 * `createManager`'s (one way to make them, with or without Nest); Nest holds the manager, its
 * `Client` and that `Container`, injectable everywhere, and starts and stops the manager with the
 * application. Call `app.enableShutdownHooks()` for a graceful stop on SIGTERM.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(options: RuntimeModuleOptions): DynamicModule {
    const { manager, container } = createManager(options);
    return {
      module: RuntimeModule,
      providers: [
        { provide: RUNTIME_OPTIONS, useValue: options },
        { provide: Manager, useValue: manager },
        { provide: Client, useValue: manager.client },
        { provide: Container, useValue: container },
        ManagerLifecycle,
      ],
      exports: [Manager, Client, Container],
    };
  }
}
