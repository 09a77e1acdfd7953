/** Whether the object carries the finalizer. */
export function hasFinalizer(object: { metadata?: { finalizers?: readonly string[] } }, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Kubernetes' IsDeletionCandidate: being deleted, and still held by the finalizer. */
export function isDeletionCandidate(object: { metadata?: { deletionTimestamp?: string; finalizers?: readonly string[] } }, finalizer: string): boolean {
  return !!object.metadata?.deletionTimestamp && hasFinalizer(object, finalizer);
}

/** Kubernetes' NeedToAddFinalizer: not being deleted, and without the finalizer. */
export function needsFinalizer(object: { metadata?: { deletionTimestamp?: string; finalizers?: readonly string[] } }, finalizer: string): boolean {
  return !object.metadata?.deletionTimestamp && !hasFinalizer(object, finalizer);
}

/** A copy of the object with the finalizer added or removed (other finalizers kept in order). */
export function withFinalizer<T extends { metadata?: { finalizers?: string[] } }>(object: T, finalizer: string, present: boolean): T {
  const clone = structuredClone(object);
  const others = (clone.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  clone.metadata = { ...clone.metadata, finalizers: present ? [...others, finalizer] : others };
  return clone;
}
