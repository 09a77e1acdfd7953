import type { KubeObject } from './kube-object';

/** Turns an object into the key the store files it under. */
export type KeyFunc<T> = (obj: T) => string;

/** `namespace/name`, or `name` for a cluster-scoped object (client-go's MetaNamespaceKeyFunc). */
export function metaNamespaceKey(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name, so it has no cache key');
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** The cache key (`namespace/name`) of `name` in `namespace`; an empty or missing namespace means cluster-scoped. */
export function namespacedNameKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by {@link metaNamespaceKey}; `namespace` is `''` for a cluster-scoped key. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] };
  if (parts.length === 2) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected key format: ${JSON.stringify(key)}`);
}
