import type { KindDefinition, Scheme } from '@svc/api';
import { resourceInfo, type ResourceInfo, type TypedResource } from '@svc/client';

/**
 * How a reconciler names a resource type: a typed resource (`BUILTIN_RESOURCES.deployments`), a
 * KindDefinition (`deploymentDefinition`, a CRD's), or `{ apiVersion, kind }` looked up in the scheme.
 */
export type ResourceRef<T = unknown> = TypedResource<T> | KindDefinition | ResourceInfo | { apiVersion: string; kind: string } | MetadataOnlyRef;

/** A resource whose objects are cached as metadata only (see {@link metadataOnly}). */
export interface MetadataOnlyRef {
  readonly metadataOnlyOf: Exclude<ResourceRef, MetadataOnlyRef>;
}

/**
 * The resource cached as metadata only (`PartialObjectMetadata`: apiVersion, kind and metadata of
 * each object, no spec, data or status), for reconcilers that act on owners, finalizers, labels or
 * names only: the cache then costs a fraction of the objects' size. Its informer is separate from a
 * full one of the same resource.
 */
export function metadataOnly(ref: ResourceRef): MetadataOnlyRef {
  return isMetadataOnly(ref) ? ref : { metadataOnlyOf: ref };
}

export function isMetadataOnly(ref: ResourceRef): ref is MetadataOnlyRef {
  return typeof ref === 'object' && ref !== null && 'metadataOnlyOf' in ref;
}

function isTyped(ref: ResourceRef): ref is TypedResource<unknown> {
  return typeof ref === 'object' && ref !== null && 'info' in ref;
}

function isApiVersionKind(ref: ResourceRef): ref is { apiVersion: string; kind: string } {
  return 'apiVersion' in ref && 'kind' in ref && !('resource' in ref);
}

/** The ResourceInfo of `ref`; a `{ apiVersion, kind }` not in the scheme is an error. */
export function resolveResource(ref: ResourceRef, scheme: Scheme): ResourceInfo {
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
