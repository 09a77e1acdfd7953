import type { ApiObject } from '@svc/api';
import type { Store } from './generic/store';
import type { WriteState } from './generic/write-state';
import type { ResourceRegistries } from './registries';
import type { WriteOptions, WriteResult } from './types';

/**
 * What a kind's REST of a subresource create is given, once the generic create has checked the body
 * as an object of the subresource's kind named by the path and admission has passed it: the store
 * of the kind the subresource belongs to, the typed registries of every kind, and the write.
 */
export interface SubresourceCreation {
  store: Store;
  registries: ResourceRegistries;
  w: WriteState;
  namespace: string;
  name: string;
  /** The request's body, of the subresource's kind. */
  body: ApiObject;
  options: WriteOptions;
}

/**
 * Kubernetes' REST of a subresource that is not CRUD of its object (a pod's binding and eviction):
 * a create that acts on the object, or beyond it. It answers what the object became, or nothing
 * (the answer is a Success Status either way).
 */
export interface SubresourceRest {
  create(creation: SubresourceCreation): Promise<WriteResult | void>;
}

/** The REST of each kind's own subresources, by group, resource and subresource (Kubernetes' storage map of a group). */
export type SubresourceRestTable = (group: string, resource: string, subresource: string) => SubresourceRest | undefined;
