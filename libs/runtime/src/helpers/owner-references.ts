import type { OwnerReference } from '@svc/api';
import { editable, type MetaObject } from './object-shape';

export class AlreadyOwnedError extends Error {
  constructor(readonly existing: OwnerReference) {
    super(`object is already controlled by ${existing.kind} ${existing.name} (${existing.uid})`);
    this.name = 'AlreadyOwnedError';
  }
}

/** An owner reference to `owner`, which must carry apiVersion, kind, name and uid (as read from the server). */
export function ownerReferenceFor(owner: MetaObject, options: { controller?: boolean; blockOwnerDeletion?: boolean } = {}): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) throw new Error('an owner needs apiVersion, kind, metadata.name and metadata.uid');
  return {
    apiVersion,
    kind,
    name,
    uid,
    ...(options.controller !== undefined ? { controller: options.controller } : {}),
    ...(options.blockOwnerDeletion !== undefined ? { blockOwnerDeletion: options.blockOwnerDeletion } : {}),
  };
}

/**
 * The controller reference to `owner` (`controller` and `blockOwnerDeletion` true) that what it
 * makes or adopts carries; `type` gives its apiVersion and kind when the object lacks them (a cached
 * object may).
 */
export function controllerReference(owner: MetaObject, type?: { apiVersion: string; kind: string }): OwnerReference {
  return ownerReferenceFor(type ? { ...owner, ...type } : owner, { controller: true, blockOwnerDeletion: true });
}

/** The owner reference with `controller: true`, if any. */
export function getControllerOf(obj: MetaObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return a.uid === b.uid || (a.apiVersion.split('/')[0] === b.apiVersion.split('/')[0] && a.kind === b.kind && a.name === b.name);
}

/** A copy of `obj` with `owner` among its owners (replacing a reference to the same owner). */
export function setOwnerReference<T extends MetaObject>(owner: MetaObject, obj: T): T {
  const ref = ownerReferenceFor(owner);
  const copy = editable(obj);
  copy.metadata ??= {};
  const refs = (copy.metadata.ownerReferences ?? []).filter((r) => !sameOwner(r, ref));
  const previous = (copy.metadata.ownerReferences ?? []).find((r) => sameOwner(r, ref));
  copy.metadata.ownerReferences = [...refs, { ...previous, ...ref }];
  return copy;
}

/**
 * A copy of `obj` controlled by `owner` (controller and blockOwnerDeletion true), so that the
 * owner's reconciler is woken by its changes and garbage collection deletes it with the owner.
 * Another controller already set is an {@link AlreadyOwnedError}.
 */
export function setControllerReference<T extends MetaObject>(owner: MetaObject, obj: T): T {
  const ref = controllerReference(owner);
  const existing = getControllerOf(obj);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(existing);
  const copy = editable(obj);
  copy.metadata ??= {};
  copy.metadata.ownerReferences = [...(copy.metadata.ownerReferences ?? []).filter((r) => !sameOwner(r, ref)), ref];
  return copy;
}

export function isControlledBy(obj: MetaObject, owner: MetaObject): boolean {
  const ref = getControllerOf(obj);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}
