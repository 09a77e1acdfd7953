import type { OwnerReference } from '@svc/api';
import type { JsonPatchOperation } from '@svc/client';

/**
 * A JSON patch that sets the list at `path` (`/metadata/ownerReferences`, `/metadata/finalizers`)
 * to `next`, or removes it when `next` is empty. Its tests make it apply only to the object with
 * `uid` whose list still equals `current`: a concurrent change of that list fails it (422) and the
 * caller reads again, while changes elsewhere in the object (status) do not get in the way.
 */
export function replaceListPatch(uid: string, path: string, current: readonly unknown[], next: readonly unknown[]): JsonPatchOperation[] {
  return [
    { op: 'test', path: '/metadata/uid', value: uid },
    { op: 'test', path, value: current },
    next.length > 0 ? { op: 'replace', path, value: next } : { op: 'remove', path },
  ];
}

/** `refs` without the references to any of `uids`. */
export function withoutOwners(refs: readonly OwnerReference[], uids: readonly string[]): OwnerReference[] {
  const drop = new Set(uids);
  return refs.filter((r) => !drop.has(r.uid));
}

/** `refs` with every `blockOwnerDeletion: true` turned false (Kubernetes' cycle breaker in foreground deletion). */
export function unblocked(refs: readonly OwnerReference[]): OwnerReference[] {
  return refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
}
