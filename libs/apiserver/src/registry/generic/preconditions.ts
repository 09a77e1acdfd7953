import type { ApiObject } from '@svc/api';
import { newConflict, OPTIMISTIC_LOCK_ERROR_MESSAGE, type GroupResource } from '@svc/machinery';
import type { DeleteRequest } from '../types';

/** An update that names a resourceVersion writes over that version only: 409 Conflict when the stored object moved on. */
export function checkResourceVersion(resource: GroupResource, name: string, next: ApiObject, current: ApiObject): void {
  const rv = next.metadata?.resourceVersion;
  if (rv && rv !== current.metadata?.resourceVersion) throw newConflict(resource, name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
}

/** A delete's preconditions (uid, resourceVersion) against the stored object: 409 Conflict when one does not hold. */
export function checkDeletePreconditions(resource: GroupResource, request: DeleteRequest, current: ApiObject, name: string): void {
  const wanted = request.preconditions ?? {};
  const meta = current.metadata ?? {};
  if (wanted.uid && wanted.uid !== meta.uid) {
    throw newConflict(resource, name, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (wanted.resourceVersion && wanted.resourceVersion !== meta.resourceVersion) {
    throw newConflict(
      resource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}
