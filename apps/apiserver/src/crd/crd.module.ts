import { type DynamicModule, Inject, Injectable, Logger, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import { HealthRegistry } from '../health/health-registry';
import { CrdController, type CrdControllerLogger } from './crd-controller';
import { installCrdValidation } from './crd-validation';
import type { CustomResourceCleaner } from './custom-resource-cleaner';

export interface CrdModuleOptions {
  /** The shared scheme the generic handlers, discovery and OpenAPI read. */
  scheme: Scheme;
  storage: Storage;
  /** `--store-prefix`. */
  storePrefix: string;
  /** Deletes a terminating definition's objects; the resource registry's deletes when given, else store deletes. */
  cleaner?: CustomResourceCleaner;
  /** An already built controller (to share it with other modules); built from the options above when absent. */
  controller?: CrdController;
  logger?: CrdControllerLogger;
}

/** Injection token of the CrdController. */
export const CRD_CONTROLLER = Symbol('CrdController');

/** Post-start hooks that start the controller and hold readiness until every stored definition is served. */
export const CRD_POST_START_HOOKS = { controllers: 'apiextensions-controllers', synced: 'crd-informer-synced' } as const;

@Injectable()
class CrdLifecycle implements OnModuleInit, OnModuleDestroy {
  constructor(
    @Inject(CRD_CONTROLLER) private readonly controller: CrdController,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.addPostStartHook(CRD_POST_START_HOOKS.controllers, () => this.controller.start());
    this.health.addPostStartHook(CRD_POST_START_HOOKS.synced, () => {
      this.controller.start();
      return this.controller.synced;
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.controller.stop();
  }
}

/**
 * CustomResourceDefinitions: the controller that serves them (see CrdController), the structural
 * validation rule added to the CustomResourceDefinition kind, and the post-start hooks
 * `poststarthook/apiextensions-controllers` and `poststarthook/crd-informer-synced` (readyz).
 */
@Module({})
export class CrdModule {
  static forRoot(options: CrdModuleOptions): DynamicModule {
    installCrdValidation(options.scheme);
    const logger = options.logger ?? new Logger('CustomResourceDefinitions');
    const controller =
      options.controller ??
      new CrdController({ scheme: options.scheme, storage: options.storage, storePrefix: options.storePrefix, cleaner: options.cleaner, logger });
    return {
      module: CrdModule,
      providers: [{ provide: CRD_CONTROLLER, useValue: controller }, CrdLifecycle],
      exports: [CRD_CONTROLLER],
    };
  }
}
