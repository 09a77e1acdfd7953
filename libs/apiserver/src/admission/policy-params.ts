import type { ApiObject, LabelSelector, Scheme } from '@svc/api';
import { LabelQuery } from '@svc/machinery';
import { isStorageError, objectStorageKey, prefixKey, type Storage } from '@svc/storage';

/** Params of a policy binding: objects read in full, at most this many for one selector. */
export const MAX_POLICY_PARAMS = 100;

export interface ParamQuery {
  apiVersion: string;
  kind: string;
  /** Empty for a cluster-scoped param kind, or for every namespace. */
  namespace: string;
  name?: string;
  selector?: LabelSelector;
}

/** The objects a paramRef names; throws an Error when its kind is not served. */
export type ParamSource = (query: ParamQuery) => Promise<ApiObject[]>;

/** Reads params straight from storage, by the scheme's resource of their kind. */
export function storedParams(storage: Storage, storePrefix: string, scheme: Scheme): ParamSource {
  return async (query) => {
    const definition = scheme.byApiVersionKind(query.apiVersion, query.kind);
    if (definition === undefined) throw new Error(`paramKind ${query.apiVersion}, Kind=${query.kind} is not served`);
    const namespace = definition.namespaced && query.namespace ? query.namespace : undefined;
    const builtIn = definition.source.type === 'builtin';
    if (query.name !== undefined && query.name !== '') {
      try {
        const key = objectStorageKey({ prefix: storePrefix, group: definition.group, resource: definition.resource, builtIn, namespace, name: query.name });
        return [await storage.get<ApiObject & { metadata: object }>(key)];
      } catch (error) {
        if (isStorageError(error, 'KeyNotFound') || error instanceof TypeError) return [];
        throw error;
      }
    }
    const selector = LabelQuery.fromLabelSelector(query.selector ?? {});
    const listed = await storage.list<ApiObject & { metadata: object }>(
      prefixKey({ prefix: storePrefix, group: definition.group, resource: definition.resource, builtIn, namespace }),
      {
        limit: 10 * MAX_POLICY_PARAMS,
      },
    );
    return listed.items.filter((o) => selector.matches(o.metadata?.labels ?? {})).slice(0, MAX_POLICY_PARAMS);
  };
}
