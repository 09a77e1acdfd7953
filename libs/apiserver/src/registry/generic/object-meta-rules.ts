import { statusWriteTakes, type ApiObject, type KindDefinition, type ObjectMeta } from '@svc/api';
import { fieldForbidden, fieldInvalid, jsonEqualExcept, type FieldError, metaTime, type UserInfo } from '@svc/machinery';

/**
 * The metadata rules every write follows, as Kubernetes' BeforeCreate/BeforeUpdate apply them, with
 * each kind's own rules read from its strategy. All functions change the object they are given in place.
 */

/** The metadata a status write may take from the request, unless reset. */
const STATUS_METADATA = ['labels', 'annotations'] as const;

/** Kubernetes keeps `metadata.generation` where the strategy says so; by default for kinds with a status subresource. */
export function tracksGeneration(def: KindDefinition): boolean {
  return def.strategy.tracksGeneration ?? def.subresources.status === true;
}

export function hasStatusSubresource(def: KindDefinition): boolean {
  return def.subresources.status === true;
}

/** The fields a client never sets: uid, creation time, version, deletion marks, generation, initial status. */
export function prepareForCreate(def: KindDefinition, obj: ApiObject, context: { namespace: string; now: Date; uid: string; user?: UserInfo }): void {
  const meta = (obj.metadata ??= {}) as ObjectMeta & Record<string, unknown>;
  if (def.namespaced) meta.namespace = context.namespace;
  else delete meta.namespace;
  meta.uid = context.uid;
  meta.creationTimestamp = metaTime(context.now);
  delete meta.resourceVersion;
  delete meta.selfLink;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (tracksGeneration(def)) meta.generation = 1;
  else delete meta.generation;
  // Status is the controllers' to write: a created object starts with none, or the kind's initial one.
  if (hasStatusSubresource(def) && def.strategy.resetStatusOnCreate !== false) delete obj.status;
  def.strategy.prepareForCreate?.(obj, context.user);
}

/**
 * Errors of an update's metadata against the stored object that no schema can state: immutable uid, a
 * deletion mark set by hand, finalizers added to an object being deleted. (The kind's own rules run
 * on the defaulted object, in the registry.)
 */
export function validateUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const meta = obj.metadata ?? {};
  const old = current.metadata ?? {};
  if (meta.uid && old.uid && meta.uid !== old.uid) errors.push(fieldInvalid('metadata.uid', meta.uid, 'field is immutable'));
  if (meta.deletionTimestamp && !old.deletionTimestamp) {
    errors.push(fieldInvalid('metadata.deletionTimestamp', meta.deletionTimestamp, 'field is immutable; may only be changed via deletion'));
  }
  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers ?? []);
    const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) {
      errors.push(
        fieldForbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify([...new Set(added)].sort())}`,
        ),
      );
    }
  }
  return errors;
}

/**
 * Carries over what an update of the main resource may not change: uid (when not given), creation
 * time, deletion marks, generation (bumped here when anything outside metadata and status changed),
 * for kinds with a status subresource the stored status, and what the kind's strategy keeps.
 */
export function prepareForUpdate(def: KindDefinition, obj: ApiObject, current: ApiObject): void {
  const meta = (obj.metadata ??= {}) as ObjectMeta & Record<string, unknown>;
  const old = current.metadata ?? {};
  if (!meta.uid && old.uid) meta.uid = old.uid;
  // The request's namespace was checked against the path; a cluster-scoped object never has one.
  if (old.namespace) meta.namespace = old.namespace;
  else delete meta.namespace;
  if (old.creationTimestamp) meta.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  }
  delete meta.selfLink;
  if (hasStatusSubresource(def)) {
    if (current.status === undefined) delete obj.status;
    else obj.status = current.status;
  }
  def.strategy.prepareForUpdate?.(obj, current);
  bumpGeneration(def, obj, current);
}

/**
 * The object a write to the `status` subresource leaves: the stored object with the new status and
 * the request's labels and annotations unless the kind's status strategy resets them; spec and
 * everything else stay as stored.
 */
export function statusUpdateOf(def: KindDefinition, incoming: ApiObject, current: ApiObject): ApiObject {
  const next: ApiObject = { ...current, metadata: { ...current.metadata } };
  if (incoming.status === undefined) delete next.status;
  else next.status = incoming.status;
  for (const field of STATUS_METADATA) {
    if (!statusWriteTakes(def.strategy.status, field)) continue;
    const value = incoming.metadata?.[field];
    if (value === undefined) delete next.metadata![field];
    else next.metadata![field] = value;
  }
  const rv = incoming.metadata?.resourceVersion;
  if (rv !== undefined) next.metadata!.resourceVersion = rv;
  else delete next.metadata!.resourceVersion;
  if (incoming.metadata?.managedFields !== undefined) next.metadata!.managedFields = incoming.metadata.managedFields;
  return next;
}

/** generation = stored + 1 when anything but metadata (and status, for kinds with a status subresource) changed. */
export function bumpGeneration(def: KindDefinition, obj: ApiObject, current: ApiObject): void {
  const meta = (obj.metadata ??= {}) as ObjectMeta & Record<string, unknown>;
  const oldGeneration = current.metadata?.generation;
  if (!tracksGeneration(def)) {
    if (oldGeneration === undefined) delete meta.generation;
    else meta.generation = oldGeneration;
    return;
  }
  const base = typeof oldGeneration === 'number' ? oldGeneration : 0;
  // Status is part of the desired state only where no status subresource separates it (custom resources without one).
  const ignored = hasStatusSubresource(def) ? ['metadata', 'status', 'apiVersion', 'kind'] : ['metadata', 'apiVersion', 'kind'];
  const changed = !jsonEqualExcept(obj, current, ignored);
  meta.generation = changed || base === 0 ? base + 1 : base;
}
