/**
 * The part of an object's metadata the cache needs. Any typed kind (`Pod`, `ApiObject`, a custom
 * resource) fits, so informers never import the kinds they hold.
 */
export interface KubeObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
  /** Dropped by the reflector's default transform. */
  managedFields?: unknown;
}

/** An object as lists and watches return it. */
export interface KubeObject {
  metadata?: KubeObjectMeta;
}

/** The resourceVersion an object carries, `''` when it carries none. */
export function resourceVersionOf(obj: KubeObject | undefined): string {
  return obj?.metadata?.resourceVersion ?? '';
}
