import type { KubeObject } from './kube-object';
import type { ListerWatcher, ListerWatcherEvent } from './lister-watcher';

/** What one list call of a resource client takes (`ResourceClient.list` of `@svc/client`). */
export interface ClientListParams {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  signal?: AbortSignal;
}

/** What one watch call of a resource client takes (`ResourceClient.watch` of `@svc/client`). */
export interface ClientWatchParams {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/**
 * The part of a resource client an informer uses. `ResourceClient<T>` of `@svc/client` is one; the
 * interface is spelt out here so that informers do not depend on the client's other verbs.
 */
export interface ListWatchClient<T> {
  list(params: ClientListParams): Promise<{ items: T[]; metadata: { resourceVersion?: string; continue?: string } }>;
  watch(
    params: ClientWatchParams,
  ): Promise<AsyncIterable<ListerWatcherEvent<T>> & { stop(): void; batches?(): AsyncIterable<readonly ListerWatcherEvent<T>[]> }>;
}

/** Which part of a resource an informer watches. */
export interface ListWatchScope {
  /** Unset or empty: all namespaces (or a cluster-scoped resource). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * A ListerWatcher over a resource client, bound to a namespace and selectors (client-go's
 * NewFilteredListWatchFromClient): the reflector adds versions, paging and timeouts.
 */
export function listerWatcherFor<T extends KubeObject>(client: ListWatchClient<T>, scope: ListWatchScope = {}): ListerWatcher<T> {
  const bound = {
    namespace: scope.namespace || undefined,
    labelSelector: scope.labelSelector || undefined,
    fieldSelector: scope.fieldSelector || undefined,
  };
  return {
    list: (options) =>
      client.list({
        ...bound,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        signal: options.signal,
      }),
    watch: (options) =>
      client.watch({
        ...bound,
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks,
        timeoutSeconds: options.timeoutSeconds,
        signal: options.signal,
      }),
  };
}
