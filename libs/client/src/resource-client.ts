import { SCALE_API_VERSION, type ApiObject, type List, type ObjectMeta, type Scale } from '@svc/api';
import { isResourceExpired, newBadRequest, type Status } from '@svc/machinery';
import type { QueryValue, RestClient } from './rest-client';
import type {
  ApplyParams,
  DeleteCollectionParams,
  DeleteParams,
  GetParams,
  JsonPatchOperation,
  ListParams,
  MergePatch,
  PatchParams,
  PatchType,
  PostParams,
  WatchParams,
  WriteParams,
} from './request-params';
import { apiVersionOfInfo, collectionPath, objectPath, type ResourceInfo } from './resource-info';
import { Watch } from './watch';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE } from './client-config';
import { hasProtobufForm, PROTOBUF_ACCEPT, protobufBody } from './wire-codec';

/** The fields of an object every resource client reads. */
export interface ObjectLike {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: { name?: string | undefined; namespace?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** The page size `listAll` uses when the caller gives none (client-go's pager default). */
export const DEFAULT_PAGE_SIZE = 500;

/** An object as a metadata-only read returns it. */
export interface PartialObjectMetadata {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

// Kubernetes' group name for the views, which this server answers as well as its own.
const METADATA_OBJECT_MEDIA_TYPE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_LIST_MEDIA_TYPE = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
// The views have meta/v1 messages, for every resource: client-go's metadata client reads them in protobuf.
const METADATA_OBJECT_PROTOBUF_ACCEPT = `${KUBERNETES_PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, ${METADATA_OBJECT_MEDIA_TYPE}`;
const METADATA_LIST_PROTOBUF_ACCEPT = `${KUBERNETES_PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, ${METADATA_LIST_MEDIA_TYPE}`;

function writeQuery(p: WriteParams): Record<string, QueryValue> {
  return { dryRun: p.dryRun ? 'All' : undefined, fieldManager: p.fieldManager, fieldValidation: p.fieldValidation };
}

function listQuery(p: ListParams | DeleteCollectionParams): Record<string, QueryValue> {
  return {
    labelSelector: p.labelSelector,
    fieldSelector: p.fieldSelector,
    limit: p.limit,
    continue: p.continue,
    resourceVersion: p.resourceVersion,
    resourceVersionMatch: p.resourceVersionMatch,
    timeoutSeconds: p.timeoutSeconds,
  };
}

/**
 * The delete options, sent both as query parameters and, when any is set, as a DeleteOptions
 * body: Kubernetes reads either, and preconditions travel only in the body.
 */
function deleteRequest(p: DeleteParams): { query: Record<string, QueryValue>; body?: Record<string, unknown> } {
  const query = { dryRun: p.dryRun ? 'All' : undefined, gracePeriodSeconds: p.gracePeriodSeconds, propagationPolicy: p.propagationPolicy };
  const options: Record<string, unknown> = {};
  if (p.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = p.gracePeriodSeconds;
  if (p.propagationPolicy !== undefined) options.propagationPolicy = p.propagationPolicy;
  if (p.preconditions !== undefined) options.preconditions = p.preconditions;
  if (p.dryRun) options.dryRun = ['All'];
  const body = Object.keys(options).length ? { apiVersion: 'v1', kind: 'DeleteOptions', ...options } : undefined;
  return { query, body };
}

/**
 * The verbs on one resource type, typed by its object type T. Namespaced and cluster-scoped
 * paths, the core group (`/api/v1`) and named groups (`/apis/<g>/<v>`) come from its ResourceInfo.
 */
export class ResourceClient<T extends ObjectLike = ApiObject, I = T> {
  /** Whether this resource's requests speak protobuf (see `ClientConfig.contentType`). */
  private readonly protobuf: boolean;

  constructor(
    private readonly rest: RestClient,
    readonly info: ResourceInfo,
    /** The namespace of a client made by `inNamespace`. */
    readonly namespace?: string,
    /** Set on a client made by `metadataOnly`: reads answer with metadata only. */
    private readonly metadataView = false,
  ) {
    this.protobuf = rest.config.wireFormat === 'protobuf' && !metadataView && hasProtobufForm(apiVersionOfInfo(info), info.kind);
  }

  /** A client whose calls default to `namespace`. */
  inNamespace(namespace: string): ResourceClient<T, I> {
    return new ResourceClient<T, I>(this.rest, this.info, namespace, this.metadataView);
  }

  /**
   * The same resource read as metadata only (`as=PartialObjectMetadata`, and `...List` for lists):
   * get, list and watch carry `apiVersion`, `kind` and `metadata` of each object and nothing else,
   * as Kubernetes' metadata client reads them (a cache of owners and finalizers without the bodies).
   */
  metadataOnly(): ResourceClient<PartialObjectMetadata> {
    return new ResourceClient<PartialObjectMetadata>(this.rest, this.info, this.namespace, true);
  }

  get apiVersion(): string {
    return apiVersionOfInfo(this.info);
  }

  async get(name: string, params: GetParams = {}): Promise<T> {
    return this.call(() =>
      this.rest.request<T>({
        method: 'GET',
        path: this.itemPath(name, params.namespace, 'get'),
        query: { resourceVersion: params.resourceVersion },
        signal: params.signal,
        accept: this.metadataView ? this.metadataAccept(false) : this.answerAccept(),
      }),
    );
  }

  /** One page of the collection (all of it without `limit`). */
  async list(params: ListParams = {}): Promise<List<T>> {
    const list = await this.call(() =>
      this.rest.request<List<T>>({
        method: 'GET',
        path: collectionPath(this.wire(), params.namespace ?? this.namespace),
        query: listQuery(params),
        signal: params.signal,
        accept: this.metadataView ? this.metadataAccept(true) : this.answerAccept(),
      }),
    );
    list.items ??= [];
    list.metadata ??= {};
    return list;
  }

  /**
   * Every page, in order (`limit` defaults to 500). An expired continue token midway throws the
   * 410 Expired error; `listAll` handles it by starting over.
   */
  async *listPages(params: Omit<ListParams, 'continue'> = {}): AsyncGenerator<List<T>> {
    const limit = params.limit ?? DEFAULT_PAGE_SIZE;
    let page = await this.list({ ...params, limit });
    yield page;
    while (page.metadata.continue) {
      // The token carries the snapshot's version; a resourceVersion beside it is invalid.
      page = await this.list({ ...params, limit, continue: page.metadata.continue, resourceVersion: undefined, resourceVersionMatch: undefined });
      yield page;
    }
  }

  /**
   * The whole collection in one List, read page by page; `metadata.resourceVersion` is the one
   * of the snapshot all pages came from, so a watch from it misses nothing. When a continue token
   * expires midway the list is read again without paging, as client-go's pager does.
   */
  async listAll(params: Omit<ListParams, 'continue'> = {}): Promise<List<T>> {
    let first: List<T> | undefined;
    const items: T[] = [];
    try {
      for await (const page of this.listPages(params)) {
        first ??= page;
        items.push(...page.items);
      }
    } catch (err) {
      if (!first || !isResourceExpired(err)) throw err;
      return completeList(await this.list({ ...params, limit: undefined }));
    }
    return completeList({ ...first!, items });
  }

  /** Opens a watch; resolves once the server accepted it. */
  async watch(params: WatchParams = {}): Promise<Watch<T>> {
    const namespace = params.namespace ?? this.namespace;
    const controller = new AbortController();
    const onAbort = () => controller.abort(params.signal?.reason);
    if (params.signal?.aborted) onAbort();
    params.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.call(() =>
        this.rest.stream({
          method: 'GET',
          path: collectionPath(this.wire(), namespace),
          query: {
            watch: 1,
            resourceVersion: params.resourceVersion,
            resourceVersionMatch: params.resourceVersionMatch,
            allowWatchBookmarks: params.allowWatchBookmarks ? 'true' : undefined,
            labelSelector: params.labelSelector,
            fieldSelector: params.fieldSelector,
            timeoutSeconds: params.timeoutSeconds,
            sendInitialEvents: params.sendInitialEvents === undefined ? undefined : String(params.sendInitialEvents),
          },
          signal: controller.signal,
          accept: this.metadataView ? this.metadataAccept(false) : this.answerAccept(),
        }),
      );
      response.once('close', () => params.signal?.removeEventListener('abort', onAbort));
      return new Watch<T>(response, namespace ? `${this.info.resource} in ${namespace}` : this.info.resource, controller.signal);
    } catch (err) {
      params.signal?.removeEventListener('abort', onAbort);
      throw err;
    }
  }

  /** Creates the object: `I` is what a creator sends, which the server completes into a `T`. */
  async create(input: I, params: PostParams = {}): Promise<T> {
    // What the server fills in (defaults) is absent from `I`; the body is the creator's object as given.
    const obj = input as unknown as T;
    const namespace = this.writeNamespace(obj, params, 'create');
    return this.call(() =>
      this.rest.request<T>({
        method: 'POST',
        path: collectionPath(this.wire(), namespace),
        query: writeQuery(params),
        ...this.objectBody(this.withTypeMeta(obj)),
        signal: params.signal,
      }),
    );
  }

  /** Replaces the object (PUT); `metadata.resourceVersion`, when set, makes it conditional. */
  async update(obj: T, params: WriteParams = {}): Promise<T> {
    return this.put(obj, params, undefined);
  }

  /** Replaces the status subresource. */
  async updateStatus(obj: T, params: WriteParams = {}): Promise<T> {
    return this.put(obj, params, 'status');
  }

  /**
   * Replaces the object through another subresource that takes the whole object, such as a
   * namespace's `finalize` (the only way its `spec.finalizers` change).
   */
  async updateSubresource(obj: T, subresource: string, params: WriteParams = {}): Promise<T> {
    return this.put(obj, params, subresource);
  }

  /**
   * POST of another kind's object to a subresource (a pod's `binding` takes a Binding); the answer is
   * what the server returns, a Success Status for a binding.
   */
  async createSubresource<B extends ObjectLike, R = Status>(name: string, subresource: string, body: B, params: PostParams = {}): Promise<R> {
    return this.call(() =>
      this.rest.request<R>({
        method: 'POST',
        path: this.itemPath(name, params.namespace ?? body.metadata?.namespace ?? undefined, `create ${subresource} of`, subresource),
        query: writeQuery(params),
        ...this.objectBody(body),
        signal: params.signal,
      }),
    );
  }

  patch(name: string, patch: readonly JsonPatchOperation[], type: 'json', params?: PatchParams): Promise<T>;
  patch(name: string, patch: MergePatch<T>, type?: Exclude<PatchType, 'json'>, params?: PatchParams): Promise<T>;
  async patch(name: string, patch: unknown, type: PatchType = 'merge', params: PatchParams = {}): Promise<T> {
    return this.sendPatch(name, patch, type, params, undefined);
  }

  patchStatus(name: string, patch: readonly JsonPatchOperation[], type: 'json', params?: PatchParams): Promise<T>;
  patchStatus(name: string, patch: MergePatch<T>, type?: Exclude<PatchType, 'json'>, params?: PatchParams): Promise<T>;
  async patchStatus(name: string, patch: unknown, type: PatchType = 'merge', params: PatchParams = {}): Promise<T> {
    return this.sendPatch(name, patch, type, params, 'status');
  }

  /** Server-side apply of `obj` (its name and namespace address it). */
  async apply(obj: MergePatch<T> & ObjectLike, params: ApplyParams): Promise<T> {
    return this.sendPatch(
      this.nameOf(obj, 'apply'),
      this.withTypeMeta(obj),
      'apply',
      { ...params, namespace: params.namespace ?? obj.metadata?.namespace ?? undefined },
      undefined,
    );
  }

  /** Server-side apply to the status subresource. */
  async applyStatus(obj: MergePatch<T> & ObjectLike, params: ApplyParams): Promise<T> {
    return this.sendPatch(
      this.nameOf(obj, 'apply'),
      this.withTypeMeta(obj),
      'apply',
      { ...params, namespace: params.namespace ?? obj.metadata?.namespace ?? undefined },
      'status',
    );
  }

  /**
   * Deletes one object. The answer is the object when deletion is pending (finalizers, graceful
   * deletion) and a Success Status when it is gone.
   */
  async delete(name: string, params: DeleteParams = {}): Promise<T | Status> {
    const { query, body } = deleteRequest(params);
    return this.call(() =>
      this.rest.request<T | Status>({
        method: 'DELETE',
        path: this.itemPath(name, params.namespace, 'delete'),
        query,
        ...this.objectBody(body),
        signal: params.signal,
      }),
    );
  }

  /** Deletes every object the selectors match (in one namespace, or in all when none is given). */
  async deleteCollection(params: DeleteCollectionParams = {}): Promise<List<T> | Status> {
    const { query, body } = deleteRequest(params);
    return this.call(() =>
      this.rest.request<List<T> | Status>({
        method: 'DELETE',
        path: collectionPath(this.wire(), params.namespace ?? this.namespace),
        query: { ...listQuery(params), ...query },
        ...this.objectBody(body),
        signal: params.signal,
      }),
    );
  }

  async getScale(name: string, params: GetParams = {}): Promise<Scale> {
    this.requireScale();
    return this.call(() =>
      this.rest.request<Scale>({
        method: 'GET',
        path: this.itemPath(name, params.namespace, 'get scale of', 'scale'),
        query: { resourceVersion: params.resourceVersion },
        signal: params.signal,
        accept: this.answerAccept(),
      }),
    );
  }

  async updateScale(name: string, scale: Scale, params: WriteParams = {}): Promise<Scale> {
    this.requireScale();
    const namespace = params.namespace ?? scale.metadata?.namespace ?? this.namespace;
    const body: Scale = {
      ...scale,
      apiVersion: scale.apiVersion ?? SCALE_API_VERSION,
      kind: scale.kind ?? 'Scale',
      metadata: { ...(scale.metadata ?? {}), name },
    };
    return this.call(() =>
      this.rest.request<Scale>({
        method: 'PUT',
        path: this.itemPath(name, namespace, 'update scale of', 'scale'),
        query: writeQuery(params),
        ...this.objectBody(body),
        signal: params.signal,
      }),
    );
  }

  private async put(obj: T, params: WriteParams, subresource: string | undefined): Promise<T> {
    const namespace = this.writeNamespace(obj, params, 'update');
    return this.call(() =>
      this.rest.request<T>({
        method: 'PUT',
        path: this.itemPath(this.nameOf(obj, 'update'), namespace, 'update', subresource),
        query: writeQuery(params),
        ...this.objectBody(this.withTypeMeta(obj)),
        signal: params.signal,
      }),
    );
  }

  private async sendPatch(name: string, patch: unknown, type: PatchType, params: PatchParams, subresource: string | undefined): Promise<T> {
    const contentType = PATCH_CONTENT_TYPES[type];
    if (!contentType) throw newBadRequest(`unknown patch type ${JSON.stringify(type)}`);
    return this.call(() =>
      this.rest.request<T>({
        method: 'PATCH',
        path: this.itemPath(name, params.namespace, 'patch', subresource),
        query: { ...writeQuery(params), force: type === 'apply' && params.force ? 'true' : undefined },
        // Patch bodies are JSON (or YAML) by protocol; the answer may still be protobuf.
        body: patch,
        contentType,
        signal: params.signal,
        accept: this.answerAccept(),
      }),
    );
  }

  /** The Accept of a metadata-only read: the view in protobuf first when the client speaks it. */
  private metadataAccept(list: boolean): string {
    if (this.rest.config.wireFormat === 'protobuf') return list ? METADATA_LIST_PROTOBUF_ACCEPT : METADATA_OBJECT_PROTOBUF_ACCEPT;
    return list ? METADATA_LIST_MEDIA_TYPE : METADATA_OBJECT_MEDIA_TYPE;
  }

  /** The Accept of a request whose answer is an object (or a Status): protobuf first when this resource speaks it. */
  private answerAccept(): string | undefined {
    return this.protobuf ? PROTOBUF_ACCEPT : undefined;
  }

  /**
   * A request's body: in protobuf when this resource speaks it and the object has a message that
   * carries all of it (a Binding or an Eviction to a pod's subresource, DeleteOptions), as JSON
   * otherwise; either way the answer is asked for as `answerAccept` says.
   */
  private objectBody(body: unknown): { body: unknown; contentType?: string; accept?: string } {
    if (!this.protobuf || body === undefined) return { body, accept: this.answerAccept() };
    const encoded = protobufBody(body);
    return encoded ? { body: encoded, contentType: KUBERNETES_PROTOBUF_MEDIA_TYPE, accept: PROTOBUF_ACCEPT } : { body, accept: PROTOBUF_ACCEPT };
  }

  private requireScale(): void {
    if (this.info.subresources && !this.info.subresources.scale) {
      throw newBadRequest(`${this.info.resource}${this.info.group ? `.${this.info.group}` : ''} has no scale subresource`);
    }
  }

  private nameOf(obj: ObjectLike, verb: string): string {
    const name = obj.metadata?.name;
    if (!name) throw newBadRequest(`metadata.name is required to ${verb} ${this.info.resource}`);
    return name;
  }

  private writeNamespace(obj: ObjectLike, params: NamespaceParamsLike, verb: string): string | undefined {
    const namespace = params.namespace ?? obj.metadata?.namespace ?? this.namespace;
    if (this.info.namespaced && !namespace) throw newBadRequest(`a namespace is required to ${verb} ${this.info.resource}`);
    return namespace;
  }

  private itemPath(name: string, namespace: string | undefined, verb: string, subresource?: string): string {
    if (!name) throw newBadRequest(`a name is required to ${verb} ${this.info.resource}`);
    const ns = namespace ?? this.namespace;
    if (this.info.namespaced && !ns) throw newBadRequest(`a namespace is required to ${verb} ${this.info.resource}`);
    return objectPath(this.wire(), name, ns, subresource);
  }

  /**
   * A copy with apiVersion and kind filled in when the resource's kind is known and the object
   * leaves them out, its apiVersion as the server names the group (see ServedGroupNames).
   */
  private withTypeMeta<O extends ObjectLike>(obj: O): O {
    const typed =
      !this.info.kind || (obj.apiVersion && obj.kind) ? obj : { ...obj, apiVersion: obj.apiVersion ?? this.apiVersion, kind: obj.kind ?? this.info.kind };
    if (!this.rest.groupNames.kubernetes || !typed.apiVersion) return typed;
    const apiVersion = this.rest.groupNames.wireApiVersion(typed.apiVersion);
    return apiVersion === typed.apiVersion ? typed : { ...typed, apiVersion };
  }

  /** This resource as requests address it now: a built-in group under Kubernetes' name on a server that serves only that. */
  private wire(): ResourceInfo {
    const group = this.rest.groupNames.wireGroup(this.info.group);
    return group === this.info.group ? this.info : { ...this.info, group };
  }

  /**
   * Sends, and sends once more when the answer showed that the server names this resource's group
   * as Kubernetes does (the request is built again, at the new path).
   */
  private async call<R>(send: () => Promise<R>): Promise<R> {
    try {
      return await send();
    } catch (error) {
      if (!(await this.rest.groupNames.switchedBy(this.info.group, error))) throw error;
      return send();
    }
  }
}

function completeList<T>(list: List<T>): List<T> {
  const { continue: _token, remainingItemCount: _remaining, ...metadata } = list.metadata;
  return { ...list, metadata };
}

interface NamespaceParamsLike {
  namespace?: string;
}
