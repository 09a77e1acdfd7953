/**
 * The part of an object's metadata the cache needs. Any typed kind (`Pod`, `ApiObject`, a custom
 * resource) fits, so informers never import the kinds they hold.
 */
export interface KubeObjectMeta {
  name?: string | undefined;
  namespace?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
  labels?: Readonly<Record<string, string>> | undefined;
  annotations?: Readonly<Record<string, string>> | undefined;
  /** Dropped by the reflector's default transform. */
  managedFields?: unknown;
}

/** An object as lists and watches return it. */
export interface KubeObject {
  metadata?: KubeObjectMeta | undefined;
}

/** The resourceVersion an object carries, `''` when it carries none. */
export function resourceVersionOf(obj: KubeObject | undefined): string {
  return obj?.metadata?.resourceVersion ?? '';
}
