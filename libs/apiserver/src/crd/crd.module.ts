import { type DynamicModule, Inject, Injectable, Logger, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import { HealthRegistry } from '../health/health-registry';
import type { ResourceRegistries } from '../resources';
import { CrdController, type CrdControllerLogger } from './crd-controller';
import { installCrdValidation } from './crd-validation';
import type { CustomResourceCleaner } from './custom-resource-cleaner';
import { registryCleaner } from './registry-cleaner';

export interface CrdModuleOptions {
  /** The shared scheme the generic handlers, discovery and OpenAPI read. */
  scheme: Scheme;
  storage: Storage;
  /** `--store-prefix`. */
  storePrefix: string;
  /**
   * The resource layer's registries: custom resources of a deleted definition are then deleted
   * through them (finalizers honoured, DELETED events from the watch cache) and the resource's watch
   * cache is dropped. Without them they are deleted from the store directly.
   */
  registries?: ResourceRegistries;
  /** Overrides how a deleted definition's objects are deleted. */
  cleaner?: CustomResourceCleaner;
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

function buildController(options: CrdModuleOptions, registries: ResourceRegistries | undefined): CrdController {
  const controller = new CrdController({
    scheme: options.scheme,
    storage: options.storage,
    storePrefix: options.storePrefix,
    cleaner: options.cleaner ?? (registries ? registryCleaner(registries) : undefined),
    logger: options.logger ?? new Logger('CustomResourceDefinitions'),
  });
  if (registries) {
    controller.onChange((change) => {
      if (change.type !== 'deleted') return;
      const stillServed = options.scheme.all().some((d) => d.group === change.group && d.resource === change.resource);
      // The definition is gone and its objects with it: its watch cache has nothing left to follow.
      if (!stillServed) void registries.forget(change.group, change.resource).catch(() => undefined);
    });
  }
  return controller;
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
    return {
      module: CrdModule,
      providers: [{ provide: CRD_CONTROLLER, useFactory: () => buildController(options, options.registries) }, CrdLifecycle],
      exports: [CRD_CONTROLLER],
    };
  }
}
