import type { Client } from '@svc/client';
import { listerWatcherFor, type KubeObject, type ListWatchClient, type SharedInformer, type SharedInformerFactory } from '@svc/informers';
import { resolveResource, resourceId, type ResourceRef } from '../reconcile/resource-ref';

/**
 * The factory's informer of `ref` (one namespace, or all; a cluster-scoped kind ignores it), keyed
 * by `resourceId` so that every reconciler and reader of the same resource shares it.
 */
export function informerForResource<T extends KubeObject = KubeObject>(
  factory: SharedInformerFactory,
  client: Client,
  ref: ResourceRef<T>,
  namespace?: string,
): SharedInformer<T> {
  const info = resolveResource(ref, client.scheme);
  const ns = info.namespaced ? namespace || undefined : undefined;
  return factory.informerFor<T>({ resource: resourceId(info), namespace: ns }, () =>
    listerWatcherFor(client.dynamic(info) as unknown as ListWatchClient<T>, { namespace: ns }),
  );
}
