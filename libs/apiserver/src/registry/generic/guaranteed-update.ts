import type { ApiObject } from '@svc/api';
import { jsonEqual, newConflict, OPTIMISTIC_LOCK_ERROR_MESSAGE } from '@svc/machinery';
import { isStorageError, needsRewrite } from '@svc/storage';
import type { WriteResult } from '../types';
import { isReleased } from './deletion';
import { toStatusError } from './status-mapping';
import type { Store } from './store';
import { recoverTypeError } from './validation';
import { finishWrite, writeResult, type WriteState } from './write-state';

/** Read-modify-write rounds lost to concurrent writers before a write gives up with 409 Conflict. */
export const WRITE_ATTEMPTS = 16;

/** What a write's steps made of the stored object: a new object (absent object, create-on-update, apply), or its next state. */
export type Computed = { kind: 'create'; object: ApiObject } | { kind: 'update'; object: ApiObject; current: ApiObject };

/** The steps of one attempt, given the stored object at the request's version (null when there is none). */
export type ComputeWrite = (current: ApiObject | null) => Promise<Computed>;

/**
 * Kubernetes' GuaranteedUpdate with the store's additions: read, compute, then create (absent
 * object, create-on-update or apply), remove (a Terminating object whose last finalizer went), skip
 * (nothing changed: no new version) or write with the read version as precondition; a concurrent
 * write makes it read and compute again. A dry run computes and stops before the store.
 */
export async function guaranteedUpdate(store: Store, w: WriteState, compute: ComputeWrite): Promise<WriteResult> {
  const key = store.key(w.namespace, w.name);
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const stored = await store.readCurrent(key, w.name);
    let computed: Computed;
    try {
      computed = await compute(stored === null ? null : await store.atRequestVersion(stored));
    } catch (error) {
      await finishWrite(w, false);
      throw recoverTypeError(store, w, error);
    }
    try {
      // A value under an old encryption key, or at an older storage version, is rewritten even when nothing else changes.
      return await persist(store, w, key, computed, stored !== null && (needsRewrite(stored) || store.notAtStorageVersion(stored)));
    } catch (error) {
      await finishWrite(w, false);
      if (isStorageError(error, 'Conflict') || isStorageError(error, 'KeyNotFound') || isStorageError(error, 'KeyExists')) continue;
      throw toStatusError(error, store.groupResource, w.name);
    }
  }
  throw newConflict(store.groupResource, w.name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
}

/** The stored side of one attempt; a storage conflict sends the loop round again. */
async function persist(store: Store, w: WriteState, key: string, computed: Computed, rewrite: boolean): Promise<WriteResult> {
  const storage = store.context.storage;
  if (computed.kind === 'create') {
    if (w.options.dryRun) return finished(store, computed.object, w, true, false);
    return finished(store, await storage.create<ApiObject>(key, await store.toStorage(computed.object)), w, true, true);
  }
  const { object, current } = computed;
  const currentMeta = current.metadata ?? {};
  if (w.options.dryRun) return finished(store, object, w, false, false);
  if (isReleased(store.definition, object)) {
    const removed = await storage.delete<ApiObject>(key, { preconditions: { resourceVersion: currentMeta.resourceVersion, uid: currentMeta.uid } });
    await finishWrite(w, false);
    await store.hooks?.afterDelete?.(removed);
    return writeResult(store, removed, w, false);
  }
  if (!rewrite && sameExceptVersion(object, current)) return finished(store, current, w, false, false);
  const written = await storage.update<ApiObject>(key, await store.toStorage(object), { preconditions: { resourceVersion: currentMeta.resourceVersion } });
  return finished(store, written, w, false, true);
}

/** The result of an attempt that ended: the hooks are told whether it was stored. */
async function finished(store: Store, object: ApiObject, w: WriteState, created: boolean, stored: boolean): Promise<WriteResult> {
  await finishWrite(w, stored);
  return writeResult(store, object, w, created);
}

/** True when two states differ at most in their resourceVersion: such an update is not written. */
function sameExceptVersion(a: ApiObject, b: ApiObject): boolean {
  return jsonEqual({ ...a, metadata: { ...a.metadata, resourceVersion: undefined } }, { ...b, metadata: { ...b.metadata, resourceVersion: undefined } });
}
