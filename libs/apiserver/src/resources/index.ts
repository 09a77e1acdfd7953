// The resource layer: every verb on every resource path, for every kind of the scheme.
export { ResourcesModule } from './resources.module';
export { ResourcesRuntime, WATCH_CACHE_CHECK, createResourceRegistries } from './resources-runtime';
export type { ResourcesDependencies, ResourcesOptions, ServingHooks } from './resources-runtime';
export { ResourceRegistries } from '../registry/registries';
export { ResourceRegistry } from '../registry/resource-registry';
export { APPLY_PATCH_MEDIA_TYPE } from '../registry/verbs/patch';
export type { WriteTarget } from '../registry/generic/write-state';
export type { RegistryContext } from '../registry/registry-context';
export type {
  DeleteRequest,
  DeleteResult,
  GetQuery,
  ListOutcome,
  ListQuery,
  ObjectInput,
  PatchOptions,
  ResourceWatch,
  ResourceWatchEvent,
  WatchQuery,
  WriteOptions,
  WriteResult,
} from '../registry/types';
export { CacherPool, resourceName } from '../watchcache/cacher-pool';
export type { CacherPoolOptions } from '../watchcache/cacher-pool';
export { ResourceHandler } from '../endpoints/resource-handler';
export type { ResourceHandlerOptions } from '../endpoints/resource-handler';
export { BOOTSTRAP_NAMESPACES, SERVER_FIELD_MANAGER, ensureBootstrapNamespaces } from '../registry/core/namespace/bootstrap-namespaces';
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, planDeletion } from '../registry/generic/deletion';
export type { DeletionPlan, DeletionRequest } from '../registry/generic/deletion';
export type { FieldValidation } from '../registry/generic/field-validation';
export { decodeObjectBody, decodeJsonBody, decodeYamlBody } from '../decoding/body-decoder';
export type { DecodedBody } from '../decoding/body-decoder';
