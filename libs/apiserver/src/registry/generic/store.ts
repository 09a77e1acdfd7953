import { apiVersionOf, compileKind, storedDefinition, storedNamespace, type ApiObject, type CompiledKind, type KindDefinition } from '@svc/api';
import { getSemantics, isValidPathSegmentName, listSemantics, newNotFound, watchSemantics, type GroupResource } from '@svc/machinery';
import { isStorageError, objectStorageKey, prefixKey } from '@svc/storage';
import { conversionWebhook, type ObjectConverter } from '../../crd/conversion-webhook';
import type { RegistryContext } from '../registry-context';
import type { GetQuery, ListOutcome, ListQuery, ResourceWatch, WatchQuery } from '../types';
import { readList } from './resource-list';
import { openWatch } from './resource-watch';
import { selectionOf } from './selection';
import { toStatusError } from './status-mapping';
import type { WriteHooks } from './write-hooks';

/**
 * Kubernetes' generic store for one kind (one KindDefinition, so one version of it) over the Storage
 * contract: keys, conversion at the edges (objects are stored at the storage version and answered at
 * the endpoint's), reads through the watch cache where the tables allow, and the stored side of writes.
 * It never names a kind: what differs is the definition's strategy and the kind's write hooks. The
 * verbs (registry/verbs) run a write's steps and hand the store what to write.
 *
 * Objects returned may be shared with the watch cache and frozen: never change them.
 */
export class Store {
  readonly compiled: CompiledKind;
  /** The apiVersion of the endpoint: what responses and watch events carry. */
  readonly apiVersion: string;
  /**
   * The apiVersion objects are stored with, and managedFields name: the registered definition's.
   * It differs from `apiVersion` on the `*.k8s.io` twin of a `*.svc.io` group, which serves the same
   * objects from the same storage.
   */
  readonly storedApiVersion: string;
  readonly groupResource: GroupResource;
  /** The definition whose storage this endpoint serves. */
  readonly stored: KindDefinition;
  /**
   * The definition whose keys, watch cache and storage decorators hold the objects: `stored`, or the
   * kind it is stored as (core/v1 Events for events.k8s.io's).
   */
  readonly storage: KindDefinition;
  /** The kind's storage decorators (BeginCreate, BeginUpdate, AfterDelete), if it has any. */
  readonly hooks: WriteHooks | undefined;
  /** A CRD's conversion webhook: objects are stored at its storage version and served at this endpoint's. */
  private readonly converter: ObjectConverter | undefined;

  constructor(
    readonly definition: KindDefinition,
    readonly context: RegistryContext,
  ) {
    this.stored = storedDefinition(definition);
    this.storage = this.stored.storedAs?.definition ?? this.stored;
    this.compiled = compileKind(this.stored);
    this.apiVersion = apiVersionOf(definition);
    this.storedApiVersion = apiVersionOf(this.stored);
    this.groupResource = { group: definition.group, resource: definition.resource };
    this.hooks = context.writeHooks?.(this.storage);
    this.converter =
      storedAsConverter(this.stored) ?? conversionWebhook(this.stored, { resolveService: context.resolveService, timeoutMs: context.conversionTimeoutMs });
  }

  /** Built-in kinds take strategic merge patch and answer protobuf; custom resources do neither. */
  get builtIn(): boolean {
    return this.definition.source.type === 'builtin';
  }

  // ---- keys ----

  /** The storage key of one object; `namespace` is ignored for cluster-scoped kinds. */
  key(namespace: string, name: string): string {
    if (isValidPathSegmentName(name).length > 0 || name === '') throw newNotFound(this.groupResource, name);
    name = this.definition.strategy.storedName?.(name) ?? name;
    return objectStorageKey({
      prefix: this.context.storePrefix,
      group: this.storage.group,
      resource: this.storage.resource,
      builtIn: this.builtIn,
      namespace: this.scope(namespace),
      name,
    });
  }

  /** The key prefix of every object of the kind, or of one namespace. */
  prefix(namespace = ''): string {
    return prefixKey({
      prefix: this.context.storePrefix,
      group: this.storage.group,
      resource: this.storage.resource,
      builtIn: this.builtIn,
      namespace: this.scope(namespace) || undefined,
    });
  }

  /** The namespace objects of the kind are stored in: the stored name of a system namespace, none for a cluster-scoped kind. */
  scope(namespace: string): string {
    return this.definition.namespaced ? storedNamespace(namespace) : '';
  }

  // ---- conversion at the edges ----

  /**
   * The object with this endpoint's apiVersion and kind (a shallow copy when they differ). Through a
   * group's other name, managedFields name the endpoint's apiVersion too: one group, one manager.
   */
  typed(object: ApiObject): ApiObject {
    if (object.apiVersion === this.apiVersion && object.kind === this.definition.kind) return object;
    const typed = { ...object, apiVersion: this.apiVersion, kind: this.definition.kind };
    const managed = object.metadata?.managedFields;
    if (this.apiVersion !== this.storedApiVersion && managed?.some((m) => m.apiVersion === this.storedApiVersion)) {
      typed.metadata = {
        ...object.metadata,
        managedFields: managed.map((m) => (m.apiVersion === this.storedApiVersion ? { ...m, apiVersion: this.apiVersion } : m)),
      };
    }
    return typed;
  }

  /** A stored object (of any version) as this endpoint serves it; synchronous unless a conversion webhook has to convert it. */
  served(object: ApiObject): ApiObject | Promise<ApiObject> {
    if (this.converter === undefined || object.apiVersion === this.storedApiVersion) return this.typed(object);
    return this.inVersion(object, this.storedApiVersion).then((converted) => this.typed(converted));
  }

  async servedAll(objects: readonly ApiObject[]): Promise<ApiObject[]> {
    const converted = this.converter === undefined ? objects : await this.converter.convert(objects, this.storedApiVersion);
    return converted.map((object) => this.typed(object));
  }

  /** A stored object at the version the request names, which patches, merges and admission see. */
  atRequestVersion(object: ApiObject): Promise<ApiObject> {
    return this.inVersion(object, this.storedApiVersion);
  }

  /**
   * Whether a stored object is kept at a version other than today's storage version (written before
   * the storage version changed): a write rewrites it even when its content is unchanged, as
   * Kubernetes' comparison of the encoded bytes does, which is how stored objects are migrated.
   */
  notAtStorageVersion(stored: ApiObject): boolean {
    return this.converter !== undefined && stored.apiVersion !== this.converter.storageApiVersion;
  }

  /** The object as it is written: at the storage version, apiVersion, kind and metadata first. */
  toStorage(object: ApiObject): Promise<ApiObject> {
    const ordered = typeMetaFirst(object);
    return this.converter === undefined ? Promise.resolve(ordered) : this.inVersion(ordered, this.converter.storageApiVersion);
  }

  private async inVersion(object: ApiObject, apiVersion: string): Promise<ApiObject> {
    if (this.converter === undefined || object.apiVersion === apiVersion) return object;
    return (await this.converter.convert([object], apiVersion))[0];
  }

  // ---- reads ----

  async get(namespace: string, name: string, query: GetQuery = {}): Promise<ApiObject> {
    const key = this.key(namespace, name);
    const semantics = getSemantics({ resourceVersion: query.resourceVersion });
    const consistent = semantics.mode === 'MostRecent';
    const cacher = consistent && !this.context.consistentReadsFromCache ? undefined : this.cacher();
    try {
      const minRevision = semantics.mode === 'NotOlderThan' ? semantics.resourceVersion : undefined;
      const object =
        cacher !== undefined ? await cacher.get(key, { minRevision, consistent }) : await this.context.storage.get<ApiObject>(key, { minRevision });
      return await this.served(object);
    } catch (error) {
      throw toStatusError(error, this.groupResource, name);
    }
  }

  async list(namespace: string, query: ListQuery = {}): Promise<ListOutcome> {
    const limit = query.limit ?? 0;
    const semantics = listSemantics({
      resourceVersion: query.resourceVersion,
      resourceVersionMatch: query.resourceVersionMatch,
      limit,
      continue: query.continue,
    });
    const selection = selectionOf(this.definition, query.labelSelector, query.fieldSelector);
    try {
      const outcome = await readList({
        storage: this.context.storage,
        cacher: () => this.cacher(),
        prefix: this.prefix(namespace),
        selection,
        semantics,
        limit,
        consistentFromCache: this.context.consistentReadsFromCache === true,
      });
      return { ...outcome, items: await this.servedAll(outcome.items) };
    } catch (error) {
      throw toStatusError(error, this.groupResource);
    }
  }

  async watch(namespace: string, query: WatchQuery = {}): Promise<ResourceWatch> {
    const semantics = watchSemantics({
      resourceVersion: query.resourceVersion,
      resourceVersionMatch: query.resourceVersionMatch,
      sendInitialEvents: query.sendInitialEvents,
    });
    const selection = selectionOf(this.definition, query.labelSelector, query.fieldSelector);
    try {
      return await openWatch({
        def: this.definition,
        storage: this.context.storage,
        cacher: this.cacher(),
        prefix: this.prefix(namespace),
        selection,
        semantics,
        sendInitialEvents: query.sendInitialEvents,
        allowBookmarks: query.allowWatchBookmarks === true,
        deadline: query.deadline,
        typed: (object) => this.served(object),
        typedIsSync: this.converter === undefined,
      });
    } catch (error) {
      throw toStatusError(error, this.groupResource);
    }
  }

  /** The stored object at `key` as the store has it now, or null when there is none. */
  async readCurrent(key: string, name: string): Promise<ApiObject | null> {
    try {
      return await this.context.storage.get<ApiObject>(key);
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound')) return null;
      throw toStatusError(error, this.groupResource, name);
    }
  }

  private cacher() {
    return this.context.cachers.cacherFor(this.storage.group, this.storage.resource, this.builtIn);
  }
}

/** The object with apiVersion, kind and metadata as its first keys, the order clients print. */
function typeMetaFirst(object: ApiObject): ApiObject {
  const { apiVersion, kind, metadata, ...rest } = object;
  return { apiVersion, kind, metadata, ...rest };
}

/**
 * The converter of a kind stored as another (see KindDefinition.storedAs): objects are written in the
 * stored kind's version and read in the kind's own, under either name of its group.
 */
function storedAsConverter(definition: KindDefinition): ObjectConverter | undefined {
  const storedAs = definition.storedAs;
  if (storedAs === undefined) return undefined;
  const storageApiVersion = apiVersionOf(storedAs.definition);
  return {
    storageApiVersion,
    convert: (objects, apiVersion) =>
      Promise.resolve(
        objects.map((object) => {
          if (object.apiVersion === apiVersion) return object;
          if (apiVersion === storageApiVersion) return storedAs.toStored(object);
          return { ...storedAs.fromStored(object), apiVersion };
        }),
      ),
  };
}
