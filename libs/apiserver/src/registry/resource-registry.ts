import type { ApiObject, KindDefinition, Scale } from '@svc/api';
import { jsonClone } from '@svc/machinery';
import { scaleOf } from './generic/scale';
import { Store } from './generic/store';
import type { WriteTarget } from './generic/write-state';
import type { RegistryContext } from './registry-context';
import type { ResourceRegistries } from './registries';
import type { SubresourceRestTable } from './rest';
import type {
  DeleteRequest,
  DeleteResult,
  GetQuery,
  ListOutcome,
  ListQuery,
  ObjectInput,
  PatchOptions,
  ResourceWatch,
  WatchQuery,
  WriteOptions,
  WriteResult,
} from './types';
import { applyObject } from './verbs/apply';
import { createObject } from './verbs/create';
import { createSubresource } from './verbs/create-subresource';
import { deleteObject } from './verbs/delete';
import { deleteCollection } from './verbs/delete-collection';
import { patchObject, patchScale } from './verbs/patch';
import { updateObject, updateScale } from './verbs/update';

/** A list whose items are of one kind. */
export interface TypedListOutcome<T extends ApiObject> extends ListOutcome {
  items: readonly T[];
}

/**
 * Every verb on one kind (one KindDefinition, so one version of it), with the rules of the HTTP
 * interface and nothing of HTTP: what the resource handlers call, and what the server's own parts
 * (bootstrap, controllers, a kind's REST) write through, admission included. Reads and the stored
 * side are the kind's Store; each write is a verb of registry/verbs. `T` is the kind's type where the
 * caller knows it (the typed registries).
 *
 * Objects returned may be shared with the watch cache and frozen: never change them.
 */
export class ResourceRegistry<T extends ApiObject = ApiObject> {
  readonly store: Store;

  constructor(
    readonly definition: KindDefinition,
    context: RegistryContext,
    private readonly registries?: ResourceRegistries,
    private readonly rest: SubresourceRestTable = () => undefined,
  ) {
    this.store = new Store(definition, context);
  }

  /** Built-in kinds take strategic merge patch and answer protobuf; custom resources do neither. */
  get builtIn(): boolean {
    return this.store.builtIn;
  }

  // ---- reads ----

  get(namespace: string, name: string, query: GetQuery = {}): Promise<T> {
    return this.store.get(namespace, name, query) as Promise<T>;
  }

  list(namespace: string, query: ListQuery = {}): Promise<TypedListOutcome<T>> {
    return this.store.list(namespace, query) as Promise<TypedListOutcome<T>>;
  }

  watch(namespace: string, query: WatchQuery = {}): Promise<ResourceWatch> {
    return this.store.watch(namespace, query);
  }

  getScale(namespace: string, name: string): Promise<Scale> {
    return this.get(namespace, name).then((object) => scaleOf(this.definition, object));
  }

  // ---- writes ----

  /** POST: a new object in `namespace` (ignored for cluster-scoped kinds); 201 on success. */
  create(namespace: string, input: ObjectInput, options: WriteOptions = {}): Promise<WriteResult> {
    return createObject(this.store, namespace, input, options);
  }

  /** PUT of the object or of its `status` subresource or one its strategy serves. */
  update(namespace: string, name: string, input: ObjectInput, options: WriteOptions = {}, subresource: WriteTarget = ''): Promise<WriteResult> {
    return updateObject(this.store, namespace, name, input, options, subresource);
  }

  /** PUT of an object's status, from the object as read (a copy is written: read objects may be frozen). */
  async updateStatus(object: T, options: WriteOptions = {}): Promise<T> {
    const meta = object.metadata ?? {};
    const written = await this.update(meta.namespace ?? '', meta.name ?? '', { value: jsonClone(object) }, options, 'status');
    return written.object as T;
  }

  /**
   * PATCH of the object or of its `status` or `scale`: JSON patch, merge patch, strategic merge patch
   * (built-in kinds only, 415 otherwise), or server-side apply (`application/apply-patch+yaml`), which
   * may create the object.
   */
  patch(
    namespace: string,
    name: string,
    contentType: string | undefined,
    body: Buffer,
    options: PatchOptions = {},
    subresource: WriteTarget = '',
  ): Promise<WriteResult> {
    return patchObject(this.store, namespace, name, contentType, body, options, subresource);
  }

  /** Server-side apply of a configuration (YAML or JSON) to the object or its `status`. */
  apply(namespace: string, name: string, body: Buffer, options: PatchOptions, subresource: WriteTarget = ''): Promise<WriteResult> {
    return applyObject(this.store, namespace, name, body, options, subresource);
  }

  /** PUT of the `scale` subresource: the Scale's spec.replicas written to the object. */
  updateScale(namespace: string, name: string, input: ObjectInput, options: WriteOptions = {}): Promise<{ scale: Scale; warnings: string[] }> {
    return updateScale(this.store, namespace, name, input, options);
  }

  /** PATCH of the `scale` subresource (the patch applies to the Scale). */
  patchScale(namespace: string, name: string, contentType: string | undefined, body: Buffer, options: PatchOptions = {}) {
    return patchScale(this.store, namespace, name, contentType, body, options);
  }

  /** POST of a subresource whose body is another kind's object (a pod's `binding`, `eviction`), by the kind's REST of it. */
  createSubresource(namespace: string, name: string, subresource: string, input: ObjectInput, options: WriteOptions = {}): Promise<WriteResult> {
    if (this.registries === undefined) throw new Error(`${this.definition.resource}/${subresource} needs the registries of the other kinds`);
    return createSubresource(this.store, this.registries, this.rest, namespace, name, subresource, input, options);
  }

  /** DELETE: the first phase of deletion; preconditions (uid, resourceVersion) are checked against the stored object. */
  delete(namespace: string, name: string, request: DeleteRequest = {}, options: WriteOptions = {}): Promise<DeleteResult> {
    return deleteObject(this.store, namespace, name, request, options);
  }

  /** DELETE of a collection: every object the selectors pick, `--delete-collection-workers` at a time. */
  deleteCollection(namespace: string, query: ListQuery, request: DeleteRequest = {}, options: WriteOptions = {}): Promise<ApiObject[]> {
    return deleteCollection(this.store, namespace, query, request, options);
  }
}
