import { namespacedNameKey, splitMetaNamespaceKey } from '@svc/informers';

/** What a reconciler is asked to bring in line: one object, by namespace (absent for cluster-scoped) and name. */
export interface Request {
  namespace?: string;
  name: string;
}

/** What a reconcile asks for next; an empty result (or none) means done until something changes. */
export interface Result {
  /** Reconcile again soon, with the same backoff as an error (but counted as a requeue, not an error). */
  requeue?: boolean;
  /** Reconcile again after this many milliseconds; wins over `requeue`. */
  requeueAfter?: number;
}

/** The work queue key of a request: `namespace/name`, or `name` for a cluster-scoped object. */
export function requestKey(request: Request): string {
  return namespacedNameKey(request.namespace, request.name);
}

export function requestFromKey(key: string): Request {
  const { namespace, name } = splitMetaNamespaceKey(key);
  return namespace ? { namespace, name } : { name };
}
