import { Logger } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import type { Storage } from '@svc/storage';
import type { ResourceRegistries } from '../registry/registries';
import type { ServerPart } from '../serving/serving-core';
import { CrdController, type CrdControllerLogger } from './crd-controller';
import { installCrdValidation } from './crd-validation';
import type { CustomResourceCleaner } from './custom-resource-cleaner';
import { registryCleaner } from './registry-cleaner';

export interface CrdPartOptions {
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

/** Post-start hooks that start the controller and hold readiness until every stored definition is served. */
export const CRD_POST_START_HOOKS = { controllers: 'apiextensions-controllers', synced: 'crd-informer-synced' } as const;

/**
 * CustomResourceDefinitions: the controller that serves them (see CrdController), the structural
 * validation rule added to the CustomResourceDefinition kind, and the post-start hooks
 * `poststarthook/apiextensions-controllers` and `poststarthook/crd-informer-synced` (readyz). The
 * controller stops when the server closes.
 */
export function customResourceDefinitions(options: CrdPartOptions): ServerPart {
  installCrdValidation(options.scheme);
  return (core) => {
    const controller = crdController(options);
    core.health.addPostStartHook(CRD_POST_START_HOOKS.controllers, () => controller.start());
    core.health.addPostStartHook(CRD_POST_START_HOOKS.synced, () => {
      controller.start();
      return controller.synced;
    });
    core.onClose(() => controller.stop());
  };
}

function crdController(options: CrdPartOptions): CrdController {
  const { registries, scheme } = options;
  const controller = new CrdController({
    scheme,
    storage: options.storage,
    storePrefix: options.storePrefix,
    cleaner: options.cleaner ?? (registries ? registryCleaner(registries) : undefined),
    logger: options.logger ?? new Logger('CustomResourceDefinitions'),
  });
  if (registries) {
    controller.onChange((change) => {
      if (change.type !== 'deleted') return;
      const stillServed = scheme.all().some((d) => d.group === change.group && d.resource === change.resource);
      // The definition is gone and its objects with it: its watch cache has nothing left to follow.
      if (!stillServed) void registries.forget(change.group, change.resource).catch(() => undefined);
    });
  }
  return controller;
}
