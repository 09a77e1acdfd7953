import type { ApiObject } from '@svc/api';
import { newConflict, newNotFound, OPTIMISTIC_LOCK_ERROR_MESSAGE } from '@svc/machinery';
import { isStorageError } from '@svc/storage';
import type { AdmissionAttributes } from '../../admission';
import { planDeletion, type DeletionPlan } from '../generic/deletion';
import { WRITE_ATTEMPTS } from '../generic/guaranteed-update';
import { checkDeletePreconditions } from '../generic/preconditions';
import { toStatusError } from '../generic/status-mapping';
import type { Store } from '../generic/store';
import type { DeleteRequest, DeleteResult, WriteOptions } from '../types';

/**
 * DELETE: the first phase of deletion (see planDeletion), as Kubernetes' delete handler and store run
 * it: the stored object is read and its preconditions (uid, resourceVersion) checked (409 Conflict when
 * they do not hold), admission sees it once, then it is marked Terminating, left as it is, or removed,
 * with the read version as precondition; a concurrent write makes it read again. A dry run stops
 * before the store.
 */
export async function deleteObject(
  store: Store,
  namespace: string,
  name: string,
  request: DeleteRequest = {},
  options: WriteOptions = {},
): Promise<DeleteResult> {
  const key = store.key(namespace, name);
  const now = store.context.now();
  let admitted = false;
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const current = await store.readCurrent(key, name);
    if (current === null) throw newNotFound(store.groupResource, name);
    checkDeletePreconditions(store.groupResource, request, current, name);
    if (!admitted) await admitDelete(store, namespace, name, current, options);
    admitted = true;
    try {
      return await carryOut(store, key, current, planDeletion(store.definition, current, request, now), options.dryRun === true);
    } catch (error) {
      if (isStorageError(error, 'Conflict') || isStorageError(error, 'KeyNotFound')) continue;
      throw toStatusError(error, store.groupResource, name);
    }
  }
  throw newConflict(store.groupResource, name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
}

/** Mutating and validating admission of a delete, which both see the object as it is. */
async function admitDelete(store: Store, namespace: string, name: string, current: ApiObject, options: WriteOptions): Promise<void> {
  const served = await store.atRequestVersion(current);
  const attributes: AdmissionAttributes = {
    operation: 'DELETE',
    definition: store.definition,
    namespace: store.scope(namespace),
    name,
    subresource: '',
    object: served,
    oldObject: served,
    dryRun: options.dryRun === true,
    user: options.user,
    auditAnnotations: options.auditAnnotations,
  };
  await store.context.admission.admit(attributes);
  await store.context.admission.validate(attributes);
}

/** What the plan says, with the read version as precondition; the kind's AfterDelete once the object left the store. */
async function carryOut(store: Store, key: string, current: ApiObject, plan: DeletionPlan, dryRun: boolean): Promise<DeleteResult> {
  const storage = store.context.storage;
  const rv = current.metadata?.resourceVersion;
  switch (plan.action) {
    case 'none':
      return { object: await store.served(current), removed: false };
    case 'mark': {
      const marked = dryRun ? plan.object : await storage.update<ApiObject>(key, plan.object, { preconditions: { resourceVersion: rv } });
      return { object: await store.served(marked), removed: false };
    }
    case 'remove': {
      if (dryRun) return { object: await store.served(current), removed: true };
      const removed = await storage.delete<ApiObject>(key, { preconditions: { resourceVersion: rv, uid: current.metadata?.uid } });
      await store.hooks?.afterDelete?.(removed);
      return { object: await store.served(removed), removed: true };
    }
  }
}
