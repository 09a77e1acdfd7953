import { randomUUID } from 'node:crypto';
import {
  apiVersionOf,
  compileKind,
  ScaleSchema,
  storedDefinition,
  storedNamespace,
  type ApiObject,
  type CompiledKind,
  type KindDefinition,
  type Scale,
  type SubresourceOperations,
} from '@svc/api';
import {
  acceptedPatchMediaTypes,
  applyNonApplyPatch,
  applyPatch,
  fieldErrorsMessage,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  failureStatus,
  generateName,
  getSemantics,
  isNonApplyPatchMediaType,
  isValidPathSegmentName,
  listSemantics,
  META_GROUP,
  sameApiVersion,
  newBadRequest,
  newAlreadyExists,
  newConflict,
  newGenerateNameConflict,
  newInvalid,
  newNotFound,
  newUnsupportedMediaType,
  OPTIMISTIC_LOCK_ERROR_MESSAGE,
  StatusError,
  StatusReasons,
  updateManagedFields,
  watchSemantics,
  type FieldError,
  type GroupResource,
  type JsonObject,
  type JsonSchema,
} from '@svc/machinery';
import { MAX_STORED_OBJECT_BYTES, isStorageError, needsRewrite, objectStorageKey, prefixKey } from '@svc/storage';
import { LoopSlice } from './loop-slice';
import type { AdmissionAttributes, AdmissionOperation } from '../admission';
import { MAX_NESTING_DEPTH, valueNestingDepth } from '@svc/machinery';
import { decodeJsonBody, decodeYamlBody } from './body-decoder';
import { isReleased, planDeletion } from './deletion';
import { applyFieldValidation } from './field-validation';
import { jsonClone, jsonEqual } from '@svc/machinery';
import { mediaTypeOf } from './media-types';
import { bumpGeneration, hasStatusSubresource, prepareForCreate, prepareForUpdate, statusUpdateOf, validateUpdate } from './object-meta-rules';
import type {
  DeleteRequest,
  DeleteResult,
  GetQuery,
  ListOutcome,
  ListQuery,
  ObjectInput,
  PatchOptions,
  RegistryContext,
  ResourceWatch,
  WatchQuery,
  WriteFinish,
  WriteHooks,
  WriteOptions,
  WriteResult,
} from './registry-types';
import { readList } from './resource-list';
import { openWatch } from './resource-watch';
import { scaleOf, withScale } from './scale';
import { selectionOf } from './selection';
import { toStatusError } from './status-mapping';
import { conversionWebhook, type ObjectConverter } from '../crd/conversion-webhook';

export const APPLY_PATCH_MEDIA_TYPE = 'application/apply-patch+yaml';

/** Kubernetes tries this many generated names before it gives up with a 409. */
const GENERATE_NAME_ATTEMPTS = 8;
/** Read-modify-write rounds lost to concurrent writers before a write gives up with 409 Conflict. */
const WRITE_ATTEMPTS = 16;

/** The registries of other served resources, for a subresource create that acts on them (an eviction charges a disruption budget). */
export type PeerRegistries = (group: string, version: string, resource: string) => ResourceRegistry | undefined;

const inNamespace = (object: ApiObject): string => object.metadata?.namespace ?? '';

/** The subresources a registry writes through: the object itself, `status`, `scale`, or one the kind's strategy serves. */
export type WriteTarget = string;

interface WriteContext {
  namespace: string;
  name: string;
  subresource: WriteTarget;
  options: WriteOptions;
  now: Date;
  warnings: string[];
  unknownCount: number;
  /** managedFields were computed by server-side apply: the update bookkeeping must not run again. */
  applied: boolean;
  /** What the kind's write hooks want told once the write of this attempt is stored or abandoned. */
  finish?: WriteFinish;
  /** The event-loop time the write has held since it last let others run. */
  slice: LoopSlice;
  /** The object the write is working on, once there is one: see asTypeError. */
  subject?: ApiObject;
}

type Computed = { kind: 'create'; object: ApiObject } | { kind: 'update'; object: ApiObject; current: ApiObject };

/**
 * Every verb on one kind (one KindDefinition, so one version of it), over the Storage contract, with
 * the rules of the HTTP interface and nothing of HTTP: server-set metadata, defaulting and validation
 * from the schema, field validation levels, admission, optimistic concurrency, status and scale
 * subresources, two-phase deletion, and reads through the watch cache where the tables allow.
 *
 * Objects returned may be shared with the watch cache and frozen: never change them.
 */
export class ResourceRegistry {
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
  private readonly stored: KindDefinition;
  private readonly hooks: WriteHooks | undefined;
  /** A CRD's conversion webhook: objects are stored at its storage version and served at this endpoint's. */
  private readonly converter: ObjectConverter | undefined;

  constructor(
    readonly definition: KindDefinition,
    private readonly context: RegistryContext,
  ) {
    this.stored = storedDefinition(definition);
    this.compiled = compileKind(this.stored);
    this.apiVersion = apiVersionOf(definition);
    this.storedApiVersion = apiVersionOf(this.stored);
    this.groupResource = { group: definition.group, resource: definition.resource };
    this.hooks = context.writeHooks?.(this.stored);
    this.converter = conversionWebhook(this.stored, { resolveService: context.resolveService, timeoutMs: context.conversionTimeoutMs });
  }

  /** A stored object (of any version) as this endpoint serves it: converted, then typed. */
  /** The object at the endpoint's version; synchronous unless a conversion webhook has to convert it. */
  served(object: ApiObject): ApiObject | Promise<ApiObject> {
    if (this.converter === undefined || object.apiVersion === this.storedApiVersion) return this.typed(object);
    return this.inVersion(object, this.storedApiVersion).then((converted) => this.typed(converted));
  }

  private async servedAll(objects: readonly ApiObject[]): Promise<ApiObject[]> {
    const converted = this.converter === undefined ? objects : await this.converter.convert(objects, this.storedApiVersion);
    return converted.map((object) => this.typed(object));
  }

  private async inVersion(object: ApiObject, apiVersion: string): Promise<ApiObject> {
    if (this.converter === undefined || object.apiVersion === apiVersion) return object;
    return (await this.converter.convert([object], apiVersion))[0];
  }

  /** The object as it is written: at the storage version. */
  private toStorage(object: ApiObject): Promise<ApiObject> {
    return this.converter === undefined ? Promise.resolve(object) : this.inVersion(object, this.converter.storageApiVersion);
  }

  /** Built-in kinds take strategic merge patch and answer protobuf; custom resources do neither. */
  get builtIn(): boolean {
    return this.definition.source.type === 'builtin';
  }

  /** The storage key of one object; `namespace` is ignored for cluster-scoped kinds. */
  key(namespace: string, name: string): string {
    if (isValidPathSegmentName(name).length > 0 || name === '') throw newNotFound(this.groupResource, name);
    name = this.definition.strategy.storedName?.(name) ?? name;
    return objectStorageKey({
      prefix: this.context.storePrefix,
      group: this.stored.group,
      resource: this.stored.resource,
      builtIn: this.builtIn,
      namespace: this.scope(namespace),
      name,
    });
  }

  /** The key prefix of every object of the kind, or of one namespace. */
  prefix(namespace = ''): string {
    return prefixKey({
      prefix: this.context.storePrefix,
      group: this.stored.group,
      resource: this.stored.resource,
      builtIn: this.builtIn,
      namespace: this.scope(namespace) || undefined,
    });
  }

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

  // ---- writes ----

  /** POST: a new object in `namespace` (ignored for cluster-scoped kinds); 201 on success. */
  async create(namespace: string, input: ObjectInput, options: WriteOptions = {}): Promise<WriteResult> {
    if (this.definition.terminating === true) {
      throw new StatusError(
        failureStatus(405, StatusReasons.MethodNotAllowed, 'create not allowed while custom resource definition is terminating', {
          group: this.definition.group,
          kind: this.definition.resource,
        }),
      );
    }
    const object = this.objectOf(input.value);
    this.checkTypeMeta(object);
    this.checkNamespace(object, namespace);
    const w = this.writeContext(namespace, object.metadata?.name ?? '', '', options);
    this.validateFields(object, input.duplicateFields ?? [], w);
    await w.slice.yieldIfSpent();
    try {
      this.prepareNew(object, w);
      await w.slice.yieldIfSpent();
      await this.context.admission.admit(this.attributes('CREATE', w, object));
    } catch (error) {
      throw this.asTypeError(error, w);
    }
    // Read after admission: a mutating webhook's patch gives the object new metadata.
    const meta = object.metadata!;
    const generate = !meta.name && !!meta.generateName;
    for (let attempt = 1; ; attempt++) {
      if (generate) meta.name = generateName(meta.generateName!);
      w.name = meta.name ?? '';
      // With a generated name, each attempt works on its own copy: what the hooks assign to one is
      // given back if it is not stored. A named create has one attempt and needs no copy (a copy of a
      // 4 MB object held the event loop for 0.4 s).
      const candidate = generate ? jsonClone(object) : object;
      try {
        await this.beginCreate(candidate, w);
        this.validate(candidate, [], w);
        await w.slice.yieldIfSpent();
        await this.context.admission.validate(this.attributes('CREATE', w, candidate));
        if (options.dryRun) {
          // A dry run answers as the real create would, a taken name included.
          if ((await this.readCurrent(this.key(namespace, w.name), w.name)) === null) {
            await this.finish(w, false);
            return { object: await this.served(candidate), warnings: w.warnings, created: true };
          }
          await this.finish(w, false);
          if (generate && attempt < GENERATE_NAME_ATTEMPTS) continue;
          throw generate ? newGenerateNameConflict(this.groupResource, w.name, 1) : newAlreadyExists(this.groupResource, w.name);
        }
        const stored = await this.context.storage.create<ApiObject>(this.key(namespace, w.name), await this.toStorage(typeMetaFirst(candidate)));
        await this.finish(w, true);
        return { object: await this.served(stored), warnings: w.warnings, created: true };
      } catch (error) {
        await this.finish(w, false);
        if (generate && isStorageError(error, 'KeyExists')) {
          if (attempt < GENERATE_NAME_ATTEMPTS) continue;
          throw newGenerateNameConflict(this.groupResource, w.name, 1);
        }
        throw toStatusError(this.asTypeError(error, w), this.groupResource, w.name);
      }
    }
  }

  /** The kind's BeginCreate hook, whose finish is kept for the end of the attempt. */
  private async beginCreate(object: ApiObject, w: WriteContext): Promise<void> {
    if (this.hooks?.beginCreate === undefined) return;
    w.finish = await this.hooks.beginCreate(object, { dryRun: w.options.dryRun === true });
  }

  /** Tells the hooks how the attempt ended (once); errors of the hooks' cleanup are theirs to keep. */
  private async finish(w: WriteContext, stored: boolean): Promise<void> {
    const finish = w.finish;
    w.finish = undefined;
    if (finish !== undefined) await finish(stored);
  }

  /** The kind's AfterDelete hook. */
  private async afterDelete(object: ApiObject): Promise<void> {
    await this.hooks?.afterDelete?.(object);
  }

  /** PUT of the object or of its `status` subresource or one its strategy serves. */
  async update(namespace: string, name: string, input: ObjectInput, options: WriteOptions = {}, subresource: WriteTarget = ''): Promise<WriteResult> {
    const incoming = this.objectOf(input.value);
    this.checkTypeMeta(incoming);
    this.checkNamespace(incoming, namespace);
    this.checkName(incoming, name);
    const w = this.writeContext(namespace, name, subresource, options);
    this.validateFields(incoming, input.duplicateFields ?? [], w);
    return this.writeLoop(w, async (current) => {
      await w.slice.yieldIfSpent();
      const next = jsonClone(incoming);
      if (current === null) {
        if (!this.definition.allowCreateOnUpdate || subresource !== '') throw newNotFound(this.groupResource, name);
        this.prepareNew(next, w);
        return { kind: 'create', object: await this.admitNew(next, w) };
      }
      return { kind: 'update', object: await this.prepareUpdate(current, next, w), current };
    });
  }

  /**
   * PATCH of the object or of its `status` subresource: JSON patch, merge patch, strategic merge patch
   * (built-in kinds only, 415 otherwise), or server-side apply (`application/apply-patch+yaml`), which
   * may create the object.
   */
  async patch(
    namespace: string,
    name: string,
    contentType: string | undefined,
    body: Buffer,
    options: PatchOptions = {},
    subresource: WriteTarget = '',
  ): Promise<WriteResult> {
    const mediaType = mediaTypeOf(contentType ?? '');
    if (mediaType === APPLY_PATCH_MEDIA_TYPE) return this.apply(namespace, name, body, options, subresource);
    if (options.force !== undefined) throw this.patchOptionsInvalid([fieldForbidden('force', 'may not be specified for non-apply patch')]);
    if (!isNonApplyPatchMediaType(mediaType)) throw newUnsupportedMediaType(acceptedPatchMediaTypes({ builtIn: this.builtIn }));
    const slice = new LoopSlice();
    const decoded = decodeJsonBody(body);
    const duplicates = mediaType === 'application/json-patch+json' ? [] : decoded.duplicateFields;
    const w = this.writeContext(namespace, name, subresource, options, slice);
    return this.writeLoop(w, async (current) => {
      if (current === null) throw newNotFound(this.groupResource, name);
      await w.slice.yieldIfSpent();
      const onScale = subresource === 'scale';
      const base = (onScale ? scaleOf(this.definition, current) : current) as JsonObject;
      const schema: JsonSchema = onScale ? ScaleSchema : this.compiled.schema;
      let patched: ApiObject;
      try {
        patched = applyNonApplyPatch(mediaType, base, decoded.value, {
          builtIn: this.builtIn,
          schema,
          accumulatedCopySizeLimit: this.context.maxRequestBodyBytes,
        });
      } catch (error) {
        throw toStatusError(error, this.groupResource, name);
      }
      // The patched document must still be this object: a patch that drops or renames its metadata
      // (`{"metadata":null}`, `{"$patch":"delete"}`) would otherwise strip labels and finalizers.
      this.checkPatchedIdentity(patched, name, mediaType === 'application/json-patch+json');
      w.subject = patched;
      await w.slice.yieldIfSpent();
      if (onScale) return { kind: 'update', object: await this.prepareUpdate(current, this.scaledObject(current, patched), w), current };
      this.checkTypeMeta(patched);
      this.checkNamespace(patched, namespace);
      w.warnings = [];
      this.validateFields(patched, duplicates, w);
      await w.slice.yieldIfSpent();
      return { kind: 'update', object: await this.prepareUpdate(current, patched, w), current };
    });
  }

  private async apply(namespace: string, name: string, body: Buffer, options: PatchOptions, subresource: WriteTarget): Promise<WriteResult> {
    const manager = options.fieldManager ?? '';
    if (manager === '') throw this.patchOptionsInvalid([fieldRequired('fieldManager', 'is required for apply patch')]);
    if (subresource !== '' && subresource !== 'status') throw newUnsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']);
    const slice = new LoopSlice();
    const decoded = await decodeYamlBody(body);
    await slice.yieldIfSpent();
    const applied = this.objectOf(decoded.value);
    // A configuration applied through either name of the group is this group's.
    if (typeof applied.apiVersion === 'string' && applied.apiVersion !== this.storedApiVersion && sameApiVersion(applied.apiVersion, this.storedApiVersion)) {
      applied.apiVersion = this.storedApiVersion;
    }
    // An applied configuration that names an object names this one: an empty name is no exception.
    const appliedName = applied.metadata?.name;
    if (appliedName !== undefined && appliedName !== name) throw nameMismatch(String(appliedName), name);
    this.checkNamespace(applied, namespace);
    const w = this.writeContext(namespace, name, subresource, options, slice);
    w.applied = true;
    this.validateFields(applied, decoded.duplicateFields, w);
    return this.writeLoop(w, async (current) => {
      if (current === null && subresource !== '') throw newNotFound(this.groupResource, name);
      const result = applyPatch({
        live: current === null ? undefined : (current as JsonObject),
        applied: jsonClone(applied),
        manager,
        force: options.force === true,
        apiVersion: this.storedApiVersion,
        kind: this.definition.kind,
        subresource: subresource || undefined,
        schema: this.compiled.schema,
        now: w.now,
        resetFields: this.resetFields(subresource),
      });
      await w.slice.yieldIfSpent();
      const object = result.object as ApiObject;
      if (current === null) {
        this.checkName(object, name);
        this.prepareNew(object, w);
        return { kind: 'create', object: await this.admitNew(object, w) };
      }
      return { kind: 'update', object: await this.prepareUpdate(current, object, w), current };
    });
  }

  /**
   * POST of a subresource whose body is another kind's object (a pod's `binding`): the body checked
   * against the subresource's kind, the path's name and namespace and its own rules, then applied to
   * the stored object by the kind's strategy, with the read version as precondition.
   */
  async createSubresource(
    namespace: string,
    name: string,
    subresource: string,
    input: ObjectInput,
    options: WriteOptions = {},
    peers: PeerRegistries = () => undefined,
  ): Promise<WriteResult> {
    const create = this.definition.strategy.subresources?.[subresource]?.create;
    if (create === undefined) throw newNotFound(this.groupResource, name);
    const body = this.objectOf(input.value);
    const bodyApiVersion = create.kind.group ? `${create.kind.group}/${create.kind.version}` : create.kind.version;
    if (body.kind !== undefined && body.kind !== create.kind.kind) {
      throw newBadRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${create.kind.kind})`);
    }
    if (body.apiVersion !== undefined && body.apiVersion !== bodyApiVersion) {
      throw newBadRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${bodyApiVersion})`);
    }
    this.checkNamespace(body, namespace);
    if ((body.metadata?.name ?? '') !== name) throw newBadRequest(`name in URL does not match name in ${create.kind.kind} object`);
    const errors = create.validate(body);
    if (errors.length > 0) throw newInvalid({ group: create.kind.group, kind: create.kind.kind }, name, errors);
    const w = this.writeContext(namespace, name, subresource, options);
    await this.context.admission.admit(this.attributes('CREATE', w, body));
    await this.context.admission.validate(this.attributes('CREATE', w, body));
    if (create.perform) {
      const current = await this.readCurrent(this.key(namespace, name), name);
      if (current === null) throw newNotFound(this.groupResource, name);
      await create.perform(body, await this.inVersion(current, this.storedApiVersion), this.operations(namespace, name, options, w, peers));
      return { object: current, warnings: w.warnings, created: true };
    }
    if (create.apply === undefined) throw newNotFound(this.groupResource, name);
    return this.writeLoop(w, async (current) => {
      if (current === null) throw newNotFound(this.groupResource, name);
      const next = create.apply!(body, current, { now: w.now });
      bumpGeneration(this.definition, next, current);
      this.validate(next, [], w);
      return { kind: 'update', object: next, current };
    });
  }

  /** The operations a performed subresource create may use, with the request's caller and dry run. */
  private operations(namespace: string, name: string, options: WriteOptions, w: WriteContext, peers: PeerRegistries): SubresourceOperations {
    const peer = (group: string, version: string, resource: string): ResourceRegistry => {
      const registry = peers(group, version, resource);
      if (registry === undefined) throw newNotFound({ group, resource }, '');
      return registry;
    };
    const dryRun = options.dryRun === true;
    return {
      now: w.now,
      dryRun,
      get: (group, version, resource, inNamespace, objectName) => peer(group, version, resource).get(inNamespace, objectName),
      list: async (group, version, resource, inNamespace) => {
        if (peers(group, version, resource) === undefined) return [];
        return [...(await peer(group, version, resource).list(inNamespace)).items];
      },
      updateStatus: async (group, version, resource, object) => {
        // Listed objects are the watch cache's, frozen: the update works on a copy.
        const value = jsonClone(object);
        const written = await peer(group, version, resource).update(inNamespace(object), object.metadata?.name ?? '', { value }, { dryRun }, 'status');
        return written.object;
      },
      deleteSelf: async ({ dryRun: dryDelete, ...request }) => {
        await this.delete(namespace, name, request, { ...options, dryRun: dryRun || dryDelete === true });
      },
    };
  }

  // ---- scale ----

  async getScale(namespace: string, name: string): Promise<Scale> {
    return scaleOf(this.definition, await this.get(namespace, name));
  }

  /** PUT of the `scale` subresource: the Scale's spec.replicas written to the object. */
  async updateScale(namespace: string, name: string, input: ObjectInput, options: WriteOptions = {}): Promise<{ scale: Scale; warnings: string[] }> {
    const scale = this.objectOf(input.value);
    if (scale.metadata?.name && scale.metadata.name !== name) throw nameMismatch(scale.metadata.name, name);
    const w = this.writeContext(namespace, name, 'scale', options);
    const result = await this.writeLoop(w, async (current) => {
      if (current === null) throw newNotFound(this.groupResource, name);
      return { kind: 'update', object: await this.prepareUpdate(current, this.scaledObject(current, scale), w), current };
    });
    return { scale: scaleOf(this.definition, result.object), warnings: result.warnings };
  }

  /** PATCH of the `scale` subresource (the patch applies to the Scale). */
  async patchScale(
    namespace: string,
    name: string,
    contentType: string | undefined,
    body: Buffer,
    options: PatchOptions = {},
  ): Promise<{ scale: Scale; warnings: string[] }> {
    const result = await this.patch(namespace, name, contentType, body, options, 'scale');
    return { scale: scaleOf(this.definition, result.object), warnings: result.warnings };
  }

  private scaledObject(current: ApiObject, scale: ApiObject): ApiObject {
    const next = withScale(this.definition, current, scale);
    // A Scale that names a resourceVersion makes it a precondition of the write, as Kubernetes does.
    const rv = scale.metadata?.resourceVersion;
    if (rv) next.metadata = { ...next.metadata, resourceVersion: rv };
    return next;
  }

  // ---- deletes ----

  /**
   * DELETE: the first phase of deletion (see planDeletion). Preconditions (uid, resourceVersion) are
   * checked against the stored object: 409 Conflict when they do not hold.
   */
  async delete(namespace: string, name: string, request: DeleteRequest = {}, options: WriteOptions = {}): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    const now = this.context.now();
    const storage = this.context.storage;
    let admitted = false;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current = await this.readCurrent(key, name);
      if (current === null) throw newNotFound(this.groupResource, name);
      this.checkDeletePreconditions(request, current, name);
      if (!admitted) {
        const served = await this.inVersion(current, this.storedApiVersion);
        const attributes: AdmissionAttributes = {
          operation: 'DELETE',
          definition: this.definition,
          namespace: this.scope(namespace),
          name,
          subresource: '',
          object: served,
          oldObject: served,
          dryRun: options.dryRun === true,
          user: options.user,
          auditAnnotations: options.auditAnnotations,
        };
        await this.context.admission.admit(attributes);
        await this.context.admission.validate(attributes);
        admitted = true;
      }
      const plan = planDeletion(this.definition, current, request, now);
      const rv = current.metadata?.resourceVersion;
      try {
        switch (plan.action) {
          case 'none':
            return { object: await this.served(current), removed: false };
          case 'mark':
            if (options.dryRun) return { object: await this.served(plan.object), removed: false };
            return { object: await this.served(await storage.update<ApiObject>(key, plan.object, { preconditions: { resourceVersion: rv } })), removed: false };
          case 'remove': {
            if (options.dryRun) return { object: await this.served(current), removed: true };
            const removed = await storage.delete<ApiObject>(key, { preconditions: { resourceVersion: rv, uid: current.metadata?.uid } });
            await this.afterDelete(removed);
            return { object: await this.served(removed), removed: true };
          }
        }
      } catch (error) {
        if (isStorageError(error, 'Conflict') || isStorageError(error, 'KeyNotFound')) continue;
        throw toStatusError(error, this.groupResource, name);
      }
    }
    throw newConflict(this.groupResource, name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
  }

  /**
   * DELETE of a collection: every object the selectors pick is deleted as one DELETE would, with
   * `--delete-collection-workers` deletes at a time. Returns the objects deleted or left Terminating.
   */
  async deleteCollection(namespace: string, query: ListQuery, request: DeleteRequest = {}, options: WriteOptions = {}): Promise<ApiObject[]> {
    const listed = await this.list(namespace, {
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
      resourceVersion: query.resourceVersion,
      resourceVersionMatch: query.resourceVersionMatch,
    });
    const items = [...listed.items];
    const results = new Array<ApiObject | undefined>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const index = next++;
        const meta = items[index].metadata ?? {};
        try {
          results[index] = (await this.delete(meta.namespace ?? '', meta.name ?? '', { ...request, preconditions: undefined }, options)).object;
        } catch (error) {
          if (toStatusError(error, this.groupResource).code !== 404) throw error;
        }
      }
    };
    const workers = Math.max(1, Math.min(this.context.deleteCollectionWorkers, items.length));
    await Promise.all(Array.from({ length: workers }, worker));
    return results.filter((r): r is ApiObject => r !== undefined);
  }

  // ---- the write pipeline ----

  /**
   * Kubernetes' GuaranteedUpdate with the registry's additions: read, compute, then create (absent
   * object, create-on-update or apply), remove (a Terminating object whose last finalizer went), skip
   * (nothing changed: no new version) or write with the read version as precondition; a concurrent
   * write makes it read and compute again. A dry run computes and stops before the store.
   */
  private async writeLoop(w: WriteContext, compute: (current: ApiObject | null) => Promise<Computed>): Promise<WriteResult> {
    const key = this.key(w.namespace, w.name);
    const storage = this.context.storage;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const stored = await this.readCurrent(key, w.name);
      // A value under an old encryption key is rewritten even when nothing else changes.
      const rewrite = stored !== null && needsRewrite(stored);
      let computed: Computed;
      try {
        // Patches, merges and admission see the object at the version the request names.
        computed = await compute(stored === null ? null : await this.inVersion(stored, this.storedApiVersion));
      } catch (error) {
        await this.finish(w, false);
        throw this.asTypeError(error, w);
      }
      try {
        if (computed.kind === 'create') {
          if (w.options.dryRun) return await this.finished(computed.object, w, true, false);
          return await this.finished(await storage.create<ApiObject>(key, await this.toStorage(typeMetaFirst(computed.object))), w, true, true);
        }
        const { object } = computed;
        const currentMeta = computed.current.metadata ?? {};
        if (w.options.dryRun) return await this.finished(object, w, false, false);
        if (isReleased(this.definition, object)) {
          const removed = await storage.delete<ApiObject>(key, { preconditions: { resourceVersion: currentMeta.resourceVersion, uid: currentMeta.uid } });
          await this.finish(w, false);
          await this.afterDelete(removed);
          return await this.written(removed, w, false);
        }
        if (!rewrite && sameExceptVersion(object, computed.current)) return await this.finished(computed.current, w, false, false);
        return await this.finished(
          await storage.update<ApiObject>(key, await this.toStorage(typeMetaFirst(object)), {
            preconditions: { resourceVersion: currentMeta.resourceVersion },
          }),
          w,
          false,
          true,
        );
      } catch (error) {
        await this.finish(w, false);
        if (isStorageError(error, 'Conflict') || isStorageError(error, 'KeyNotFound') || isStorageError(error, 'KeyExists')) continue;
        throw toStatusError(error, this.groupResource, w.name);
      }
    }
    throw newConflict(this.groupResource, w.name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
  }

  private async written(object: ApiObject, w: WriteContext, created: boolean): Promise<WriteResult> {
    return { object: await this.served(object), warnings: w.warnings, created };
  }

  /** The result of an attempt that ended: the hooks are told whether it was stored. */
  private async finished(object: ApiObject, w: WriteContext, created: boolean, stored: boolean): Promise<WriteResult> {
    await this.finish(w, stored);
    return this.written(object, w, created);
  }

  /** Server-set metadata, defaults and managedFields of an object about to be created. */
  private prepareNew(object: ApiObject, w: WriteContext): void {
    w.subject = object;
    prepareForCreate(this.definition, object, { namespace: this.scope(w.namespace), now: w.now, uid: randomUUID() });
    this.compiled.default(object);
    if (!w.applied) this.setManagedFields(undefined, object, w);
  }

  /** Admission and validation of an object created by PUT or apply (its name comes from the path). */
  private async admitNew(object: ApiObject, w: WriteContext): Promise<ApiObject> {
    await this.context.admission.admit(this.attributes('CREATE', w, object));
    await this.beginCreate(object, w);
    this.validate(object, [], w);
    await this.context.admission.validate(this.attributes('CREATE', w, object));
    return object;
  }

  /** An update of `current` to `incoming` (a private copy), by the rules of the target subresource. */
  private async prepareUpdate(current: ApiObject, incoming: ApiObject, w: WriteContext): Promise<ApiObject> {
    w.subject = incoming;
    const errors: FieldError[] = [];
    let next: ApiObject;
    switch (w.subresource) {
      case '':
        for (const error of validateUpdate(incoming, current)) errors.push(error);
        next = incoming;
        prepareForUpdate(this.definition, next, current);
        break;
      case 'status':
        next = statusUpdateOf(this.definition, incoming, current);
        bumpGeneration(this.definition, next, current);
        for (const error of this.definition.strategy.validateStatusUpdate?.(next, current) ?? []) errors.push(error);
        break;
      case 'scale':
        next = incoming;
        bumpGeneration(this.definition, next, current);
        break;
      default: {
        // A subresource of the kind's own (a namespace's finalize): the strategy says what it changes.
        const extra = this.definition.strategy.subresources?.[w.subresource];
        if (extra?.updateOf === undefined) throw newNotFound(this.groupResource, w.name);
        next = extra.updateOf(incoming, current);
      }
    }
    this.compiled.default(next);
    await w.slice.yieldIfSpent();
    if (!w.applied) this.setManagedFields(current, next, w);
    await w.slice.yieldIfSpent();
    const rv = next.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) throw newConflict(this.groupResource, w.name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
    await this.context.admission.admit(this.attributes('UPDATE', w, next, current));
    if (w.subresource === '') {
      // What mutating admission changed counts as the update's own change, as it does where Kubernetes
      // admits before the strategy prepares the update.
      bumpGeneration(this.definition, next, current);
      // The kind's own rules compare the object as it will be stored, defaults applied and admitted, as
      // Kubernetes validates an update after decoding and mutating admission: a client that leaves out a
      // defaulted field, or one admission adds back (DefaultTolerationSeconds' tolerations on a replace),
      // changes nothing.
      for (const error of this.definition.strategy.validateUpdate?.(next, current) ?? []) errors.push(error);
    }
    if (this.hooks?.beginUpdate !== undefined && w.subresource === '') {
      w.finish = await this.hooks.beginUpdate(next, current, { dryRun: w.options.dryRun === true });
    }
    this.validate(next, errors, w, current);
    await w.slice.yieldIfSpent();
    await this.context.admission.validate(this.attributes('UPDATE', w, next, current));
    return next;
  }

  private setManagedFields(live: ApiObject | undefined, object: ApiObject, w: WriteContext): void {
    // managedFields only add to an object, so one that is already too large to store will be refused
    // by the store (413, after validation has had its say): its fields are not worth tracking. A 2 MB
    // patch of 150,000 keys held the event loop for a second here before that 413.
    if (isTooLargeToStore(object)) return;
    const entries = updateManagedFields({
      live: live as JsonObject | undefined,
      updated: object as JsonObject,
      manager: w.options.fieldManager ?? '',
      apiVersion: this.storedApiVersion,
      subresource: w.subresource || undefined,
      schema: this.compiled.schema,
      now: w.now,
      resetFields: this.resetFields(w.subresource),
    });
    const meta = (object.metadata ??= {});
    if (entries.length > 0) meta.managedFields = entries;
    else delete meta.managedFields;
  }

  /** The fields a write through `subresource` cannot change (their ownership is not tracked there). */
  private resetFields(subresource: WriteTarget): string[][] | undefined {
    if (subresource === '' && hasStatusSubresource(this.definition)) return [['status']];
    if (subresource === 'status') return [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']];
    return undefined;
  }

  /**
   * Schema errors and the kind's rules: 422 Invalid listing each field. A value of the wrong type in a
   * built-in kind, or next to an unknown field, is a 400 BadRequest instead, as Kubernetes answers a
   * body it cannot decode into the kind.
   */
  private validate(object: ApiObject, extra: FieldError[], w: WriteContext, current?: ApiObject): void {
    const errors = [...extra, ...this.compiled.validate(object, current)];
    const name = object.metadata?.name ?? '';
    for (const message of name ? isValidPathSegmentName(name) : []) errors.push(fieldInvalid('metadata.name', name, message));
    if (errors.length === 0) {
      this.strategyWarnings(object, w, current);
      return;
    }
    const typeErrors = errors.filter((e) => e.type === 'FieldValueTypeInvalid');
    if (typeErrors.length > 0 && (this.builtIn || w.unknownCount > 0)) {
      const kind = this.definition.kind;
      throw newBadRequest(`${kind} in version "${this.definition.version}" cannot be handled as a ${kind}: ${fieldErrorsMessage(typeErrors)}`);
    }
    throw newInvalid({ group: this.definition.group, kind: this.definition.kind }, name, errors);
  }

  /** The kind's warnings about a valid write of the main resource, each given once however often the write is retried. */
  private strategyWarnings(object: ApiObject, w: WriteContext, current: ApiObject | undefined): void {
    if (w.subresource !== '' || this.definition.strategy.warnings === undefined) return;
    for (const warning of this.definition.strategy.warnings(object, current)) if (!w.warnings.includes(warning)) w.warnings.push(warning);
  }

  /**
   * Kubernetes refuses a body with a field of the wrong type when it decodes it, before any step of a
   * write runs. Here the steps (metadata rules, defaulting hooks, the kind's strategy, admission) run
   * on decoded JSON, and one that reads a mistyped field (an object where a list belongs) throws a
   * TypeError: that write is answered with the body's type errors, as Kubernetes answers it, not a
   * 500. A TypeError on a well-typed body stays what it is, a defect.
   */
  private asTypeError(error: unknown, w: WriteContext): unknown {
    if (!(error instanceof TypeError) || w.subject === undefined) return error;
    try {
      this.validate(w.subject, [], w);
    } catch (refusal) {
      return refusal;
    }
    return error;
  }

  private validateFields(object: ApiObject, duplicates: readonly string[], w: WriteContext): void {
    const outcome = applyFieldValidation(this.compiled, object, duplicates, w.options.fieldValidation ?? 'Warn');
    for (const warning of outcome.warnings) w.warnings.push(warning);
    w.unknownCount = outcome.unknownCount;
  }

  private writeContext(namespace: string, name: string, subresource: WriteTarget, options: WriteOptions, slice = new LoopSlice()): WriteContext {
    return { namespace, name, subresource, options, now: this.context.now(), warnings: [], unknownCount: 0, applied: false, slice };
  }

  private attributes(operation: AdmissionOperation, w: WriteContext, object: ApiObject, oldObject?: ApiObject): AdmissionAttributes {
    return {
      operation,
      definition: this.definition,
      namespace: this.scope(w.namespace),
      name: w.name,
      subresource: w.subresource,
      object,
      oldObject,
      dryRun: w.options.dryRun === true,
      warnings: w.warnings,
      user: w.options.user,
      auditAnnotations: w.options.auditAnnotations,
    };
  }

  // ---- checks of the request body ----

  private objectOf(value: unknown): ApiObject {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw newBadRequest(`the request body must be a ${this.definition.kind} object`);
    }
    const object = value as ApiObject;
    const meta = object.metadata;
    if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) {
      throw newBadRequest(
        `${this.definition.kind} in version "${this.definition.version}" cannot be handled as a ${this.definition.kind}: metadata must be an object`,
      );
    }
    // A body may name a system namespace (or be one) by its Kubernetes name: it is the object stored under the spec's.
    if (meta !== undefined) {
      if (this.definition.namespaced && typeof meta.namespace === 'string') meta.namespace = storedNamespace(meta.namespace);
      const storedName = this.definition.strategy.storedName;
      if (storedName && typeof meta.name === 'string') meta.name = storedName(meta.name);
    }
    return object;
  }

  /**
   * apiVersion and kind default to the endpoint's; another served version of the same kind, under
   * either name of the group, is taken as this one (versions of a kind convert without change here);
   * anything else is a 400. The object is stored with the registered apiVersion, and managedFields
   * a client sends back under the group's other name are read as this group's.
   */
  private checkTypeMeta(object: ApiObject): void {
    const kind = object.kind;
    if (kind !== undefined && kind !== this.definition.kind) {
      throw newBadRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${this.definition.kind})`);
    }
    const apiVersion = object.apiVersion;
    if (apiVersion !== undefined && apiVersion !== this.apiVersion && apiVersion !== this.storedApiVersion) {
      const other = typeof apiVersion === 'string' ? this.context.scheme.byApiVersionKind(apiVersion, this.definition.kind) : undefined;
      if (other === undefined || storedDefinition(other).group !== this.stored.group) {
        throw newBadRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${this.apiVersion})`);
      }
    }
    object.apiVersion = this.storedApiVersion;
    object.kind = this.definition.kind;
    const managed = object.metadata?.managedFields;
    if (this.apiVersion !== this.storedApiVersion && Array.isArray(managed)) {
      for (const entry of managed) {
        if (typeof entry === 'object' && entry !== null && typeof entry.apiVersion === 'string' && sameApiVersion(entry.apiVersion, this.storedApiVersion)) {
          entry.apiVersion = this.storedApiVersion;
        }
      }
    }
  }

  private checkNamespace(object: ApiObject, namespace: string): void {
    if (!this.definition.namespaced) return;
    const given = object.metadata?.namespace;
    if (given && given !== storedNamespace(namespace)) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** Kubernetes' checkName after a patch: the result is an object whose name is exactly the URL's. */
  private checkPatchedIdentity(patched: unknown, name: string, jsonPatch: boolean): asserts patched is ApiObject {
    const object = this.objectOf(patched);
    const given = object.metadata?.name;
    if (given !== name) throw nameMismatch(typeof given === 'string' ? given : '', name);
    // A JSON patch can put a value anywhere: the result may nest deeper than any body could. A merge
    // or strategic merge result takes each value whole from the object or the patch, both already
    // bounded, so it nests no deeper than they do. The server's own managedFields, which follow the
    // object's fields a few levels further down, are not counted.
    if (jsonPatch && valueNestingDepth({ ...object, metadata: { ...object.metadata, managedFields: undefined } }) > MAX_NESTING_DEPTH) {
      throw newInvalid({ group: this.definition.group, kind: this.definition.kind }, name, [
        fieldInvalid('', '', `the patched object nests more than ${MAX_NESTING_DEPTH} levels deep`),
      ]);
    }
  }

  private checkName(object: ApiObject, name: string): void {
    const meta = (object.metadata ??= {});
    if (meta.name && meta.name !== name) throw nameMismatch(meta.name, name);
    meta.name = name;
  }

  private checkDeletePreconditions(request: DeleteRequest, current: ApiObject, name: string): void {
    const wanted = request.preconditions ?? {};
    const meta = current.metadata ?? {};
    if (wanted.uid && wanted.uid !== meta.uid) {
      throw newConflict(this.groupResource, name, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${meta.uid ?? ''}`);
    }
    if (wanted.resourceVersion && wanted.resourceVersion !== meta.resourceVersion) {
      throw newConflict(
        this.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
      );
    }
  }

  private patchOptionsInvalid(errors: FieldError[]): Error {
    return newInvalid({ group: META_GROUP, kind: 'PatchOptions' }, '', errors);
  }

  private async readCurrent(key: string, name: string): Promise<ApiObject | null> {
    try {
      return await this.context.storage.get<ApiObject>(key);
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound')) return null;
      throw toStatusError(error, this.groupResource, name);
    }
  }

  private cacher() {
    return this.context.cachers.cacherFor(this.stored.group, this.stored.resource, this.builtIn);
  }

  private scope(namespace: string): string {
    return this.definition.namespaced ? storedNamespace(namespace) : '';
  }
}

function nameMismatch(given: string, path: string): Error {
  return newBadRequest(`the name of the object (${given}) does not match the name on the URL (${path})`);
}

/** The object with apiVersion, kind and metadata as its first keys, the order clients print. */
function typeMetaFirst(object: ApiObject): ApiObject {
  const { apiVersion, kind, metadata, ...rest } = object;
  return { apiVersion, kind, metadata, ...rest };
}

/** True when two states differ at most in their resourceVersion: such an update is not written. */
function sameExceptVersion(a: ApiObject, b: ApiObject): boolean {
  return jsonEqual({ ...a, metadata: { ...a.metadata, resourceVersion: undefined } }, { ...b, metadata: { ...b.metadata, resourceVersion: undefined } });
}

/**
 * Whether a store will surely refuse an object for its size. Stores encode it without its
 * resourceVersion, so the limit is given room for that member.
 */
function isTooLargeToStore(object: ApiObject): boolean {
  const limit = MAX_STORED_OBJECT_BYTES + 64;
  const text = JSON.stringify(object);
  return text.length > limit / 3 && Buffer.byteLength(text, 'utf8') > limit;
}
