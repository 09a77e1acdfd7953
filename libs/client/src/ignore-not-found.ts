import { isNotFound } from '@svc/machinery';

/**
 * Swallows a NotFound (404) error and rethrows any other (controller-runtime's
 * `client.IgnoreNotFound`): `await client.pods.get(name, { namespace }).catch(ignoreNotFound)` is
 * the pod or undefined, and `await client.pods.delete(name, { namespace }).catch(ignoreNotFound)`
 * succeeds when the pod is already gone.
 */
export function ignoreNotFound(error: unknown): undefined {
  if (isNotFound(error)) return undefined;
  throw error;
}
