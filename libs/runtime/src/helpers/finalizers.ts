import type { ResourceClient } from '@svc/client';
import { editable, type MetaObject } from './object-shape';

export function hasFinalizer(obj: MetaObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** A copy of `obj` with `finalizer` added (the same list when already present). */
export function withFinalizer<T extends MetaObject>(obj: T, finalizer: string): T {
  const copy = editable(obj);
  copy.metadata ??= {};
  const list = copy.metadata.finalizers ?? [];
  if (!list.includes(finalizer)) copy.metadata.finalizers = [...list, finalizer];
  return copy;
}

/** A copy of `obj` without `finalizer`. */
export function withoutFinalizer<T extends MetaObject>(obj: T, finalizer: string): T {
  const copy = editable(obj);
  if (copy.metadata?.finalizers) copy.metadata.finalizers = copy.metadata.finalizers.filter((f) => f !== finalizer);
  return copy;
}

export function isBeingDeleted(obj: MetaObject): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

export type FinalizerOutcome = 'added' | 'finalized' | 'unchanged';

/**
 * The usual finalizer dance in one call: a live object without the finalizer gets it; an object
 * being deleted that still carries it has `cleanup` run and then the finalizer removed (so the
 * server can delete it). Writes carry the object's resourceVersion: a conflict is thrown and the
 * reconcile retried, never applied over a newer state. A failing cleanup leaves the finalizer.
 */
export async function handleFinalizer<T extends MetaObject>(
  client: ResourceClient<T>,
  obj: T,
  finalizer: string,
  cleanup: (obj: T) => Promise<void> | void,
): Promise<{ outcome: FinalizerOutcome; object: T }> {
  if (!isBeingDeleted(obj)) {
    if (hasFinalizer(obj, finalizer)) return { outcome: 'unchanged', object: obj };
    return { outcome: 'added', object: await client.update(withFinalizer(obj, finalizer)) };
  }
  if (!hasFinalizer(obj, finalizer)) return { outcome: 'unchanged', object: obj };
  await cleanup(obj);
  return { outcome: 'finalized', object: await client.update(withoutFinalizer(obj, finalizer)) };
}
