import type { ApiObject } from '@svc/api';

/** Called once the write a hook began is stored (`true`) or abandoned (`false`). */
export type WriteFinish = (stored: boolean) => Promise<void>;

/**
 * What a kind's storage does around the generic writes, as Kubernetes' store decorators (BeginCreate,
 * BeginUpdate, AfterDelete) do: the Service storage allocates cluster IPs and node ports there. Hooks
 * run after mutating admission and before validation; a failure refuses the write.
 */
export interface WriteHooks {
  beginCreate?(object: ApiObject, options: { dryRun: boolean }): Promise<WriteFinish | undefined>;
  beginUpdate?(object: ApiObject, current: ApiObject, options: { dryRun: boolean }): Promise<WriteFinish | undefined>;
  /** After the object left storage. */
  afterDelete?(object: ApiObject): Promise<void>;
}
