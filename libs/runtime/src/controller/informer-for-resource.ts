import type { Client } from '@svc/client';
import { listerWatcherFor, type KubeObject, type ListWatchClient, type SharedInformer, type SharedInformerFactory } from '@svc/informers';
import { informerResourceId, isMetadataOnly, resolveResource, type ResourceRef } from '../reconcile/resource-ref';

/**
 * The factory's informer of `ref` (one namespace, or all; a cluster-scoped kind ignores it), keyed
 * by `resourceId` so that every reconciler and reader of the same resource shares it; a
 * {@link metadataOnly} reference has an informer of its own, keyed `<resourceId>#metadata`.
 */
export function informerForResource<T extends KubeObject = KubeObject>(
  factory: SharedInformerFactory,
  client: Client,
  ref: ResourceRef<T>,
  namespace?: string,
): SharedInformer<T> {
  const info = resolveResource(ref, client.scheme);
  const ns = info.namespaced ? namespace || undefined : undefined;
  const metadata = isMetadataOnly(ref);
  return factory.informerFor<T>({ resource: informerResourceId(ref, info), namespace: ns }, () => {
    const reader = metadata ? client.dynamic(info).metadataOnly() : client.dynamic(info);
    return listerWatcherFor(reader as unknown as ListWatchClient<T>, { namespace: ns });
  });
}
