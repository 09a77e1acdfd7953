import { NAMESPACE_FINALIZER, type ApiObject, type KindDefinition, type ObjectMeta } from '@svc/api';
import { fieldForbidden, fieldInvalid, type FieldError } from '@svc/machinery';
import { jsonEqual, jsonEqualExcept } from './json-equal';

/**
 * The metadata rules every write follows, as Kubernetes' BeforeCreate/BeforeUpdate and the kinds'
 * strategies apply them. All functions change the object they are given in place.
 */

/** Kubernetes keeps `metadata.generation` for kinds with a status subresource and for custom resources. */
export function tracksGeneration(def: KindDefinition): boolean {
  return def.subresources.status === true || def.source.type === 'crd';
}

export function hasStatusSubresource(def: KindDefinition): boolean {
  return def.subresources.status === true;
}

/** RFC 3339 in UTC with second precision, as Kubernetes writes timestamps. */
export function formatTimestamp(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** The fields a client never sets: uid, creation time, version, deletion marks, generation, initial status. */
export function prepareForCreate(def: KindDefinition, obj: ApiObject, context: { namespace: string; now: Date; uid: string }): void {
  const meta = (obj.metadata ??= {}) as ObjectMeta & Record<string, unknown>;
  if (def.namespaced) meta.namespace = context.namespace;
  else delete meta.namespace;
  meta.uid = context.uid;
  meta.creationTimestamp = formatTimestamp(context.now);
  delete meta.resourceVersion;
  delete meta.selfLink;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (tracksGeneration(def)) meta.generation = 1;
  else delete meta.generation;
  if (hasStatusSubresource(def) && !(def.group === '' && def.kind === 'Node')) resetStatusForCreate(def, obj);
  if (isCoreKind(def, 'Namespace')) ensureNamespaceFinalizer(obj);
}

/** Status is the controllers' to write; a created object starts with the kind's initial status (Nodes keep theirs). */
function resetStatusForCreate(def: KindDefinition, obj: ApiObject): void {
  if (isCoreKind(def, 'Namespace')) obj.status = { phase: 'Active' };
  else if (isCoreKind(def, 'Pod')) obj.status = { phase: 'Pending' };
  else delete obj.status;
}

/** A namespace always starts with the finalizer its controller removes once its content is gone. */
function ensureNamespaceFinalizer(obj: ApiObject): void {
  const spec = (isRecord(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
  const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
  if (!finalizers.includes(NAMESPACE_FINALIZER)) spec.finalizers = [...finalizers, NAMESPACE_FINALIZER];
}

/**
 * Errors of an update against the stored object that no schema can state: immutable uid, a deletion
 * mark set by hand, finalizers added to an object being deleted, an apps/v1 selector changed.
 */
export function validateUpdate(def: KindDefinition, obj: ApiObject, current: ApiObject): FieldError[] {
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
  if (def.group === 'apps' && def.version === 'v1' && (def.kind === 'Deployment' || def.kind === 'ReplicaSet')) {
    const selector = isRecord(obj.spec) ? obj.spec.selector : undefined;
    const oldSelector = isRecord(current.spec) ? current.spec.selector : undefined;
    if (!jsonEqual(selector, oldSelector)) errors.push(fieldInvalid('spec.selector', selector, 'field is immutable'));
  }
  return errors;
}

/**
 * Carries over what an update of the main resource may not change: uid (when not given), creation
 * time, deletion marks, generation (bumped here when anything outside metadata and status changed),
 * and, for kinds with a status subresource, the stored status. A namespace's spec.finalizers change
 * only through its `finalize` subresource.
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
  if (isCoreKind(def, 'Namespace')) {
    const spec = (isRecord(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
    const oldSpec = isRecord(current.spec) ? current.spec : {};
    if (oldSpec.finalizers === undefined) delete spec.finalizers;
    else spec.finalizers = oldSpec.finalizers;
  }
  bumpGeneration(def, obj, current);
}

/**
 * The metadata a write to the `status` subresource may change, as Kubernetes' status strategies
 * allow it: a built-in kind's labels and annotations (a Deployment's annotations only: its labels
 * stay, as in Kubernetes, where its controller writes the revision annotations with its status);
 * nothing of a custom resource, whose status writes change only `status`.
 */
function statusWritableMetadata(def: KindDefinition): ReadonlyArray<'labels' | 'annotations'> {
  if (def.source.type === 'crd') return [];
  if (def.group === 'apps' && def.kind === 'Deployment') return ['annotations'];
  return ['labels', 'annotations'];
}

/**
 * The object a write to the `status` subresource leaves: the stored object with the new status
 * and, where the kind allows it, the request's labels and annotations; spec and everything else
 * stay as stored.
 */
export function statusUpdateOf(def: KindDefinition, incoming: ApiObject, current: ApiObject): ApiObject {
  const next: ApiObject = { ...current, metadata: { ...current.metadata } };
  if (incoming.status === undefined) delete next.status;
  else next.status = incoming.status;
  for (const field of statusWritableMetadata(def)) {
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

/**
 * The object a write to a namespace's `finalize` subresource leaves: the stored namespace with the
 * request's spec.finalizers (none when the request has none). Only the namespace controller uses it.
 */
export function finalizeUpdateOf(incoming: ApiObject, current: ApiObject): ApiObject {
  const spec = isRecord(incoming.spec) ? incoming.spec : {};
  const next: ApiObject = {
    ...current,
    metadata: { ...current.metadata },
    spec: { ...(isRecord(current.spec) ? current.spec : {}), finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [] },
  };
  const rv = incoming.metadata?.resourceVersion;
  if (rv !== undefined) next.metadata!.resourceVersion = rv;
  else delete next.metadata!.resourceVersion;
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

export function isCoreKind(def: KindDefinition, kind: string): boolean {
  return def.group === '' && def.kind === kind;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
