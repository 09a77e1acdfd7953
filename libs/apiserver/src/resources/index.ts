// The resource layer: every verb on every resource path, for every kind of the scheme.
export { ResourcesModule } from './resources.module';
export { ResourcesRuntime, WATCH_CACHE_CHECK, createResourceRegistries } from './resources-runtime';
export type { ResourcesDependencies, ResourcesOptions, ServingHooks } from './resources-runtime';
export { ResourceRegistries } from './registries';
export { ResourceRegistry, APPLY_PATCH_MEDIA_TYPE } from './registry';
export type { WriteTarget } from './registry';
export type {
  DeleteRequest,
  DeleteResult,
  GetQuery,
  ListOutcome,
  ListQuery,
  ObjectInput,
  PatchOptions,
  RegistryContext,
  ResourceWatch,
  ResourceWatchEvent,
  WatchQuery,
  WriteOptions,
  WriteResult,
} from './registry-types';
export { CacherPool, resourceName } from './cacher-pool';
export type { CacherPoolOptions } from './cacher-pool';
export { ResourceRouter } from './resource-router';
export type { ResourceRouterOptions } from './resource-router';
export { BOOTSTRAP_NAMESPACES, SERVER_FIELD_MANAGER, ensureBootstrapNamespaces } from './bootstrap-namespaces';
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, planDeletion } from './deletion';
export type { DeletionPlan, DeletionRequest } from './deletion';
export type { FieldValidation } from './field-validation';
export { decodeObjectBody, decodeJsonBody, decodeYamlBody } from './body-decoder';
export type { DecodedBody } from './body-decoder';
