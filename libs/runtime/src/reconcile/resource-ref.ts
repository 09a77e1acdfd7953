import type { KindDefinition, Scheme } from '@svc/api';
import { resourceInfo, type PartialObjectMetadata, type ResourceInfo, type TypedResource } from '@svc/client';
import type { KubeObject } from '@svc/informers';

/**
 * How a reconciler names a resource type: a typed resource (`BUILTIN_RESOURCES.deployments`), a
 * KindDefinition (`deploymentDefinition`, a CRD's), or `{ apiVersion, kind }` looked up in the scheme.
 * Only a typed resource (or a {@link metadataOnly} one) tells the type `T` of its objects; the
 * others hold objects known only as `KubeObject`.
 */
export type ResourceRef<T = KubeObject> = TypedResource<T> | MetadataOnlyRef<T> | UntypedResourceRef;

/** A resource named without the type of its objects. */
export type UntypedResourceRef = KindDefinition | ResourceInfo | { apiVersion: string; kind: string };

/** A resource whose objects are cached as metadata only (see {@link metadataOnly}). */
export interface MetadataOnlyRef<T = PartialObjectMetadata> {
  readonly metadataOnlyOf: TypedResource<unknown> | UntypedResourceRef;
  /** Carries the object type for inference; never set. */
  readonly __object?: T;
}

/**
 * The resource cached as metadata only (`PartialObjectMetadata`: apiVersion, kind and metadata of
 * each object, no spec, data or status), for reconcilers that act on owners, finalizers, labels or
 * names only: the cache then costs a fraction of the objects' size. Its informer is separate from a
 * full one of the same resource. `T` is the type its objects are read as (a view with metadata and
 * no more, such as `ApiObject`).
 */
export function metadataOnly<T = PartialObjectMetadata>(ref: ResourceRef<unknown>): MetadataOnlyRef<T> {
  return isMetadataOnly(ref) ? { metadataOnlyOf: ref.metadataOnlyOf } : { metadataOnlyOf: ref };
}

export function isMetadataOnly(ref: ResourceRef<unknown>): ref is MetadataOnlyRef<unknown> {
  return typeof ref === 'object' && ref !== null && 'metadataOnlyOf' in ref;
}

function isTyped(ref: ResourceRef<unknown>): ref is TypedResource<unknown> {
  return typeof ref === 'object' && ref !== null && 'info' in ref;
}

function isApiVersionKind(ref: ResourceRef<unknown>): ref is { apiVersion: string; kind: string } {
  return 'apiVersion' in ref && 'kind' in ref && !('resource' in ref);
}

/** The ResourceInfo of `ref`; a `{ apiVersion, kind }` not in the scheme is an error. */
export function resolveResource(ref: ResourceRef<unknown>, scheme: Scheme): ResourceInfo {
  if (isMetadataOnly(ref)) return resolveResource(ref.metadataOnlyOf, scheme);
  if (isTyped(ref)) return ref.info;
  if (isApiVersionKind(ref)) {
    const def = scheme.byApiVersionKind(ref.apiVersion, ref.kind);
    if (!def) throw new Error(`no kind ${ref.kind} in ${ref.apiVersion} is known to the scheme`);
    return resourceInfo(def);
  }
  return resourceInfo(ref);
}

/** A stable name of a resource type, the informer factory's key: `apps/v1/deployments`, `v1/pods`. */
export function resourceId(info: ResourceInfo): string {
  return `${info.group ? `${info.group}/` : ''}${info.version}/${info.resource}`;
}

/** The informer factory's name of the cache of `ref`: its resource id, with `#metadata` for a metadata-only one. */
export function informerResourceId(ref: ResourceRef<unknown>, info: ResourceInfo): string {
  return isMetadataOnly(ref) ? `${resourceId(info)}#metadata` : resourceId(info);
}
