import type { ResourceRef } from './resource-ref';

/**
 * What a reconciler or runnable writes besides the objects it reconciles and owns (a Secret it
 * creates, a Service it patches): nothing at run time, the RBAC the generated manifests grant.
 */
export interface WriteDeclarations {
  /** Resources created, updated, patched or deleted but neither reconciled nor owned. */
  writes?: ReadonlyArray<ResourceRef<unknown>>;
}
