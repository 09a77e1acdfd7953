import type { Preconditions } from '@svc/machinery';
import type { GuaranteedUpdateOptions, StorageDeleteOptions, StoredObject, TryUpdate } from './storage';
import { StorageError, isStorageError } from './storage-error';
import { decodeObject, encodeObject } from './stored-value';

/** The single-shot operations the retry loops are built on. */
export interface UpdatePrimitives {
  get<T extends StoredObject>(key: string): Promise<T>;
  create<T extends StoredObject>(key: string, object: T, options?: { ttlSeconds?: number }): Promise<T>;
  update<T extends StoredObject>(key: string, object: T, options: { preconditions: Preconditions; ttlSeconds?: number }): Promise<T>;
}

export interface DeletePrimitives {
  get<T extends StoredObject>(key: string): Promise<T>;
  deleteOnce<T extends StoredObject>(key: string, preconditions: Preconditions): Promise<T>;
}

/** Throws Conflict or InvalidPrecondition when `current` does not satisfy `preconditions`. */
export function checkPreconditions(key: string, current: StoredObject, preconditions: Preconditions | undefined): void {
  if (preconditions === undefined) return;
  const resourceVersion = current.metadata?.resourceVersion ?? '';
  if (preconditions.uid !== undefined && preconditions.uid !== current.metadata?.uid) {
    throw StorageError.invalidPrecondition(key, preconditions.uid, current.metadata?.uid);
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion) {
    throw StorageError.conflict(key, preconditions.resourceVersion, Number(resourceVersion));
  }
}

/**
 * Kubernetes' GuaranteedUpdate over single-shot writes: each attempt writes with the version it read
 * as precondition, and a Conflict means another writer got there first, so read and try again. Some
 * writer succeeds on every round, so the loop always makes progress overall; it ends when the store is
 * closed (the read then fails with Closed).
 */
export async function guaranteedUpdate<T extends StoredObject>(
  store: UpdatePrimitives,
  key: string,
  tryUpdate: TryUpdate<T>,
  options: GuaranteedUpdateOptions = {},
): Promise<T> {
  for (;;) {
    let current: T | null;
    try {
      current = await store.get<T>(key);
    } catch (error) {
      if (!options.ignoreNotFound || !isStorageError(error, 'KeyNotFound') || options.preconditions !== undefined) {
        throw error;
      }
      current = null;
    }
    if (current === null) {
      const created = await tryUpdate(null);
      try {
        return await store.create(key, created, { ttlSeconds: options.ttlSeconds });
      } catch (error) {
        if (isStorageError(error, 'KeyExists')) continue;
        throw error;
      }
    }
    checkPreconditions(key, current, options.preconditions);
    const revision = current.metadata?.resourceVersion ?? '';
    const before = encodeObject(current);
    const next = await tryUpdate(current);
    // An update that changes nothing writes nothing, so it takes no revision and wakes no watcher.
    if (encodeObject(next) === before) return decodeObject<T>(before, Number(revision));
    try {
      return await store.update(key, next, { preconditions: { resourceVersion: revision }, ttlSeconds: options.ttlSeconds });
    } catch (error) {
      if (isStorageError(error, 'Conflict')) continue;
      if (isStorageError(error, 'KeyNotFound') && options.ignoreNotFound && options.preconditions === undefined) {
        continue;
      }
      throw error;
    }
  }
}

/**
 * Delete after validating the current object: the version validated is the version deleted. Without a
 * caller's resourceVersion precondition, a concurrent change means "read and validate again".
 */
export async function validatedDelete<T extends StoredObject>(store: DeletePrimitives, key: string, options: StorageDeleteOptions<T>): Promise<T> {
  for (;;) {
    const current = await store.get<T>(key);
    checkPreconditions(key, current, options.preconditions);
    await options.validate?.(current);
    try {
      return await store.deleteOnce<T>(key, {
        uid: options.preconditions?.uid,
        resourceVersion: current.metadata?.resourceVersion,
      });
    } catch (error) {
      if (isStorageError(error, 'Conflict') && options.preconditions?.resourceVersion === undefined) continue;
      throw error;
    }
  }
}
